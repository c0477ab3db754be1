"""Hand-written templates of everyday tasks, by class, for the task bank (`bench/everyday_bank.py`).

Each template is a function of a seeded `random.Random` that returns a task as a person would type
it and the answer spec its checker reads (`bench/everyday_checks.py`). Templates of one class word
the task differently and ask for different operations, so that a bank built from them is not one
sentence with its numbers changed; `typed` then drops capitals and question marks now and then, as
people do. The bank is built once, written to `everyday_bank.json`, and split there: see that
module for why the split is made by template.
"""

from __future__ import annotations

import datetime
import math
import random
from collections.abc import Callable
from typing import Any

Spec = dict[str, Any]
Template = Callable[[random.Random], tuple[str, Spec]]


def num(value: float, rel: float = 1e-6) -> Spec:
    return {"kind": "number", "value": value, "rel": rel}


def items(values: list[Any], ordered: bool = True) -> Spec:
    return {"kind": "list", "items": values, "ordered": ordered}


def yesno(value: bool, form: str = "any") -> Spec:
    return {"kind": "yesno", "value": value, "form": form}


def text(value: str, case: bool = False) -> Spec:
    return {"kind": "text", "value": value, "case": case}


def choice(letter: str, option: str, letter_only: bool = False) -> Spec:
    return {"kind": "choice", "letter": letter, "text": option, "letter_only": letter_only}


def date(value: datetime.date) -> Spec:
    return {"kind": "date", "value": value.isoformat()}


def typed(rng: random.Random, task: str) -> str:
    """`task` as people type it: now and then without its capital or its question mark."""
    if rng.random() < 0.25:
        task = task[0].lower() + task[1:]
    if task.endswith("?") and rng.random() < 0.25:
        task = task[:-1]
    return task


def _numbers(rng: random.Random, count: int, low: int = 1, high: int = 99) -> list[int]:
    return rng.sample(range(low, high + 1), count)


WORDS = [
    "apple", "river", "garden", "pencil", "window", "orange", "planet", "candle", "button", "forest",
    "silver", "monkey", "rocket", "butter", "bridge", "yellow", "castle", "pepper", "island", "dragon",
    "mango", "tiger", "lemon", "cloud", "horse", "chair", "bread", "stone", "grape", "zebra",
]  # fmt: skip
NAMES = ["Anna", "Ben", "Carl", "Dina", "Emil", "Fay", "Gus", "Hana", "Ivo", "Jade", "Kim", "Leo"]
MONTHS = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
]  # fmt: skip


def _date(rng: random.Random, first: int = 1990, last: int = 2030) -> datetime.date:
    start = datetime.date(first, 1, 1).toordinal()
    return datetime.date.fromordinal(rng.randrange(start, datetime.date(last, 12, 31).toordinal()))


def _long(day: datetime.date) -> str:
    return f"{day.day} {MONTHS[day.month - 1]} {day.year}"


def _us(day: datetime.date) -> str:
    return f"{MONTHS[day.month - 1]} {day.day}, {day.year}"


# --- units ---------------------------------------------------------------------------------------

_LENGTHS = [  # (from, to, factor)
    ("miles", "kilometers", 1.609344),
    ("kilometers", "miles", 1 / 1.609344),
    ("inches", "centimeters", 2.54),
    ("feet", "meters", 0.3048),
    ("pounds", "kilograms", 0.45359237),
    ("kilograms", "pounds", 1 / 0.45359237),
]
_EXACT = [("hours", "minutes", 60), ("minutes", "seconds", 60), ("liters", "milliliters", 1000),
          ("kilometers", "meters", 1000), ("days", "hours", 24), ("weeks", "days", 7)]  # fmt: skip


def units_convert(rng: random.Random) -> tuple[str, Spec]:
    source, target, factor = rng.choice(_LENGTHS)
    amount = rng.choice([2, 3, 5, 7, 10, 12, 15, 20, 26, 42, 100])
    return f"Convert {amount} {source} to {target}.", num(amount * factor, 0.005)


def units_how_many(rng: random.Random) -> tuple[str, Spec]:
    source, target, factor = rng.choice(_EXACT)
    amount = rng.randint(2, 12)
    return typed(rng, f"How many {target} are in {amount} {source}?"), num(amount * factor)


def units_celsius(rng: random.Random) -> tuple[str, Spec]:
    celsius = rng.choice([-10, 0, 5, 12, 20, 25, 30, 37, 40, 100])
    return typed(rng, f"What is {celsius} degrees Celsius in Fahrenheit?"), num(celsius * 9 / 5 + 32, 0.005)


def units_fahrenheit(rng: random.Random) -> tuple[str, Spec]:
    fahrenheit = rng.choice([32, 50, 68, 77, 86, 98, 104, 212, 0, 14])
    return f"convert {fahrenheit}F to celsius", num((fahrenheit - 32) * 5 / 9, 0.005)


def units_short(rng: random.Random) -> tuple[str, Spec]:
    amount = rng.choice([1.5, 2, 4, 6.5, 8, 9, 11, 30])
    source, target, factor = rng.choice(
        [("kg", "lbs", 1 / 0.45359237), ("km", "miles", 1 / 1.609344), ("cm", "inches", 1 / 2.54),
         ("m", "feet", 1 / 0.3048)]
    )  # fmt: skip
    return f"{amount} {source} in {target}?", num(amount * factor, 0.005)


def units_grams(rng: random.Random) -> tuple[str, Spec]:
    grams = rng.choice([250, 500, 750, 1200, 1500, 2500, 3400, 80])
    return typed(rng, f"How many kilograms is {grams} grams?"), num(grams / 1000)


# --- percentages ---------------------------------------------------------------------------------


def percent_of(rng: random.Random) -> tuple[str, Spec]:
    share, whole = (
        rng.choice([5, 10, 12, 15, 20, 25, 30, 40, 75]),
        rng.choice([40, 60, 80, 120, 240, 360, 500]),
    )
    wording = rng.choice(["What is {p}% of {w}?", "What is {p} percent of {w}?", "{p}% of {w}"])
    return typed(rng, wording.format(p=share, w=whole)), num(share * whole / 100)


def percent_what_share(rng: random.Random) -> tuple[str, Spec]:
    whole = rng.choice([20, 40, 50, 80, 200, 400])
    part = whole * rng.choice([1, 2, 3, 4]) // rng.choice([5, 8, 10])
    return typed(rng, f"What percentage of {whole} is {part}?"), num(part * 100 / whole)


def percent_discount(rng: random.Random) -> tuple[str, Spec]:
    price, off = rng.choice([20, 40, 60, 80, 120, 150]), rng.choice([10, 20, 25, 30, 50])
    return (
        f"A jacket costs ${price} and is {off}% off. What is the sale price?",
        num(price * (100 - off) / 100),
    )


def percent_increase(rng: random.Random) -> tuple[str, Spec]:
    amount, rise = rng.choice([50, 80, 200, 250, 400, 1000]), rng.choice([5, 10, 15, 20, 50])
    return typed(rng, f"Increase {amount} by {rise}%."), num(amount * (100 + rise) / 100)


def percent_change(rng: random.Random) -> tuple[str, Spec]:
    old = rng.choice([20, 40, 50, 80, 100, 200])
    new = old + old * rng.choice([10, 25, 50, -20, -25]) // 100
    return (
        f"the price went from {old} to {new} dollars. what is the percent change?",
        num((new - old) * 100 / old),
    )


def percent_score(rng: random.Random) -> tuple[str, Spec]:
    total = rng.choice([20, 25, 40, 50, 80])
    right = total * rng.choice([3, 7, 9, 4]) // 10
    return (
        typed(rng, f"I got {right} out of {total} questions right. What is my score as a percentage?"),
        num(right * 100 / total),
    )


# --- dates and weekdays --------------------------------------------------------------------------

_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def weekday_long(rng: random.Random) -> tuple[str, Spec]:
    day = _date(rng)
    past = day < datetime.date(2026, 1, 1)
    return typed(rng, f"What day of the week {'was' if past else 'is'} {_long(day)}?"), text(
        _WEEKDAYS[day.weekday()]
    )


def weekday_iso(rng: random.Random) -> tuple[str, Spec]:
    day = _date(rng)
    return typed(rng, f"Which weekday is {day.isoformat()}?"), text(_WEEKDAYS[day.weekday()])


def days_between(rng: random.Random) -> tuple[str, Spec]:
    first = _date(rng, 2000, 2028)
    second = first + datetime.timedelta(days=rng.randint(5, 400))
    return (
        typed(rng, f"How many days are there between {_us(first)} and {_us(second)}?"),
        num((second - first).days),
    )


def date_after(rng: random.Random) -> tuple[str, Spec]:
    start, days = _date(rng, 2000, 2028), rng.choice([10, 14, 30, 45, 60, 90, 100])
    return f"What date is {days} days after {start.isoformat()}?", date(start + datetime.timedelta(days=days))


def leap_year(rng: random.Random) -> tuple[str, Spec]:
    year = rng.choice([1900, 1996, 2000, 2010, 2016, 2023, 2024, 2100, 2028, 2031])
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return typed(rng, f"Is {year} a leap year?"), yesno(leap)


def days_in_month(rng: random.Random) -> tuple[str, Spec]:
    year, month = rng.randint(1995, 2030), rng.randint(1, 12)
    following = datetime.date(year + month // 12, month % 12 + 1, 1)
    return (
        typed(rng, f"How many days are in {MONTHS[month - 1]} {year}?"),
        num((following - datetime.date(year, month, 1)).days),
    )


# --- sorting and ordering ------------------------------------------------------------------------


def sort_ascending(rng: random.Random) -> tuple[str, Spec]:
    values = _numbers(rng, rng.randint(4, 6))
    return typed(rng, f"Sort the list {values} in ascending order."), items(sorted(values))


def sort_descending(rng: random.Random) -> tuple[str, Spec]:
    values = _numbers(rng, rng.randint(4, 6))
    shown = ", ".join(map(str, values))
    return f"sort these numbers from largest to smallest: {shown}", items(sorted(values, reverse=True))


def sort_words(rng: random.Random) -> tuple[str, Spec]:
    words = rng.sample(WORDS, rng.randint(3, 5))
    return typed(rng, f"Put these words in alphabetical order: {', '.join(words)}."), items(sorted(words))


def second_largest(rng: random.Random) -> tuple[str, Spec]:
    values = _numbers(rng, rng.randint(4, 6))
    return typed(rng, f"What is the second largest number in {values}?"), num(sorted(values)[-2])


def median(rng: random.Random) -> tuple[str, Spec]:
    values = _numbers(rng, rng.choice([5, 7]))
    return typed(rng, f"What is the median of {values}?"), num(sorted(values)[len(values) // 2])


def sort_decimals(rng: random.Random) -> tuple[str, Spec]:
    values = [round(rng.uniform(0.1, 9.9), 1) for _ in range(4)]
    shown = ", ".join(map(str, values))
    return f"Arrange {shown} from smallest to largest.", items(sorted(values))


# --- counting ------------------------------------------------------------------------------------


def _sentence(rng: random.Random, count: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(count))


def count_words(rng: random.Random) -> tuple[str, Spec]:
    sentence = _sentence(rng, rng.randint(4, 9))
    return typed(rng, f"How many words are in '{sentence}'?"), num(len(sentence.split()))


def count_vowels(rng: random.Random) -> tuple[str, Spec]:
    word = rng.choice(WORDS)
    return typed(rng, f"How many vowels are in the word '{word}'?"), num(sum(c in "aeiou" for c in word))


def count_even(rng: random.Random) -> tuple[str, Spec]:
    values = _numbers(rng, rng.randint(5, 8))
    return typed(rng, f"How many even numbers are in {values}?"), num(sum(v % 2 == 0 for v in values))


def count_above(rng: random.Random) -> tuple[str, Spec]:
    values, limit = _numbers(rng, rng.randint(5, 8)), rng.choice([10, 25, 50])
    return (
        f"count the numbers greater than {limit} in {values}",
        num(sum(v > limit for v in values)),
    )


def count_letter(rng: random.Random) -> tuple[str, Spec]:
    word = rng.choice(["strawberry", "mississippi", "banana", "balloon", "committee", "bookkeeper"])
    letter = rng.choice(sorted(set(word)))
    return typed(rng, f"How many {letter}'s are in {word}?"), num(word.count(letter))


def count_word_occurrences(rng: random.Random) -> tuple[str, Spec]:
    word = rng.choice(["cat", "sun", "red", "box"])
    parts = [word if rng.random() < 0.4 else rng.choice(WORDS) for _ in range(rng.randint(6, 10))]
    sentence = " ".join(parts)
    return (
        typed(rng, f"How many times does the word '{word}' appear in '{sentence}'?"),
        num(parts.count(word)),
    )


# --- strings and characters ----------------------------------------------------------------------


def reverse_word(rng: random.Random) -> tuple[str, Spec]:
    word = rng.choice(WORDS)
    wording = rng.choice(["Reverse '{w}'.", "spell {w} backwards", "What is '{w}' written backwards?"])
    return typed(rng, wording.format(w=word)), text(word[::-1], case=True)


def first_letter(rng: random.Random) -> tuple[str, Spec]:
    word = rng.choice(WORDS)
    which, index = rng.choice([("first", 0), ("last", -1), ("third", 2)])
    return typed(rng, f"What is the {which} letter of '{word}'?"), text(word[index])


def uppercase(rng: random.Random) -> tuple[str, Spec]:
    phrase = _sentence(rng, 2)
    return typed(rng, f"make '{phrase}' uppercase"), text(phrase.upper(), case=True)


def title_case(rng: random.Random) -> tuple[str, Spec]:
    phrase = _sentence(rng, 3)
    return typed(rng, f"Capitalize each word in '{phrase}'."), text(phrase.title(), case=True)


def remove_spaces(rng: random.Random) -> tuple[str, Spec]:
    phrase = _sentence(rng, 3)
    return typed(rng, f"Remove all spaces from '{phrase}'."), text(phrase.replace(" ", ""), case=True)


def initials(rng: random.Random) -> tuple[str, Spec]:
    full = " ".join(rng.sample(NAMES, 3))
    return typed(rng, f"What are the initials of {full}?"), text("".join(n[0] for n in full.split()), True)


# --- ranges and sequences ------------------------------------------------------------------------


def sum_range(rng: random.Random) -> tuple[str, Spec]:
    low, high = rng.choice([1, 1, 5, 10]), rng.choice([20, 50, 100, 200])
    return typed(rng, f"What is the sum of the numbers from {low} to {high}?"), num(sum(range(low, high + 1)))


def factorial(rng: random.Random) -> tuple[str, Spec]:
    n = rng.randint(4, 10)
    wording = rng.choice(["What is {n} factorial?", "What is {n}!?", "Calculate the factorial of {n}."])
    return wording.format(n=n), num(math.factorial(n))


def next_in_sequence(rng: random.Random) -> tuple[str, Spec]:
    start, step = rng.randint(1, 20), rng.randint(2, 9)
    shown = ", ".join(str(start + step * k) for k in range(4))
    return typed(rng, f"What is the next number in the sequence {shown}?"), num(start + step * 4)


def nth_term(rng: random.Random) -> tuple[str, Spec]:
    start, step, n = rng.randint(1, 10), rng.randint(2, 6), rng.randint(6, 15)
    shown = ", ".join(str(start + step * k) for k in range(4))
    return f"What is the {_ordinal(n)} term of the sequence {shown}, ...?", num(start + step * (n - 1))


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def multiples_count(rng: random.Random) -> tuple[str, Spec]:
    k, high = rng.choice([3, 4, 6, 7]), rng.choice([30, 50, 100])
    return typed(rng, f"How many multiples of {k} are there from 1 to {high}?"), num(high // k)


def list_odds(rng: random.Random) -> tuple[str, Spec]:
    low = rng.randint(1, 10)
    high = low + rng.randint(6, 12)
    kind, rest = rng.choice([("odd", 1), ("even", 0)])
    return (
        typed(rng, f"List the {kind} numbers from {low} to {high}."),
        items([v for v in range(low, high + 1) if v % 2 == rest]),
    )


# --- yes/no --------------------------------------------------------------------------------------


def is_prime(rng: random.Random) -> tuple[str, Spec]:
    n = rng.choice([7, 9, 15, 17, 21, 29, 33, 37, 49, 51, 53, 91, 97])
    prime = all(n % d for d in range(2, int(n**0.5) + 1))
    return typed(rng, f"Is {n} a prime number?"), yesno(prime)


def perfect_square(rng: random.Random) -> tuple[str, Spec]:
    n = rng.choice([16, 20, 49, 50, 81, 99, 121, 144, 150, 169])
    return f"Is {n} a perfect square? Answer yes or no.", yesno(math.isqrt(n) ** 2 == n, "yesno")


def greater_than(rng: random.Random) -> tuple[str, Spec]:
    a, b = rng.sample([0.5, 0.7, 0.75, 1.2, 3 / 4, 0.66, 2.5], 2)
    return typed(rng, f"Is {a} greater than {b}?"), yesno(a > b)


def palindrome(rng: random.Random) -> tuple[str, Spec]:
    word = rng.choice(["racecar", "level", "garden", "noon", "rotor", "planet", "kayak", "river"])
    return f"Does '{word}' read the same forwards and backwards? yes or no", yesno(
        word == word[::-1], "yesno"
    )


def divisible(rng: random.Random) -> tuple[str, Spec]:
    n, d = rng.randint(20, 500), rng.choice([3, 4, 6, 7, 9])
    return typed(rng, f"Is {n} divisible by {d}?"), yesno(n % d == 0)


def contains_word(rng: random.Random) -> tuple[str, Spec]:
    sentence, word = _sentence(rng, 5), rng.choice(WORDS)
    return (
        f"Does the sentence '{sentence}' contain the word '{word}'? Answer yes or no.",
        yesno(word in sentence.split(), "yesno"),
    )


# --- multiple choice -----------------------------------------------------------------------------


def _options(rng: random.Random, values: list[Any], right: Any, style: str) -> tuple[str, Spec, str]:
    rng.shuffle(values)
    letters = "ABCD"[: len(values)] if style != "lower" else "abcd"[: len(values)]
    forms = {"paren": "{k}) {v}", "lower": "({k}) {v}", "colon": "{k}: {v}"}
    shown = " ".join(forms.get(style, forms["paren"]).format(k=k, v=v) for k, v in zip(letters, values))
    letter = letters[values.index(right)]
    return shown, choice(letter.upper(), str(right)), letter


def mc_largest(rng: random.Random) -> tuple[str, Spec]:
    values = _numbers(rng, 4)
    shown, spec, _ = _options(rng, values, max(values), "paren")
    return f"Which number is the largest? {shown}", spec


def mc_arithmetic(rng: random.Random) -> tuple[str, Spec]:
    a, b = rng.randint(3, 12), rng.randint(3, 12)
    values = list({a * b, a * b + a, a * b - b, a + b} - set())
    shown, spec, _ = _options(rng, values, a * b, "lower")
    spec["letter_only"] = True
    return f"What is {a} times {b}? {shown}. Answer with the letter.", spec


def mc_alphabetical(rng: random.Random) -> tuple[str, Spec]:
    words = rng.sample(WORDS, 3)
    shown, spec, _ = _options(rng, words, min(words), "paren")
    return typed(rng, f"Which word comes first alphabetically? {shown}"), spec


def mc_even(rng: random.Random) -> tuple[str, Spec]:
    odds = rng.sample([n for n in range(11, 60) if n % 2], 3)
    even = rng.choice([n for n in range(10, 60) if n % 2 == 0])
    shown, spec, _ = _options(rng, [*odds, even], even, "colon")
    return f"Which of these is an even number? {shown}", spec


def mc_longest(rng: random.Random) -> tuple[str, Spec]:
    words = ["cat", rng.choice(["elephant", "butterfly", "crocodile"]), "dog", "owl"]
    shown, spec, _ = _options(rng, words[:3], words[1], "paren")
    return typed(rng, f"Which is the longest word? {shown}"), spec


def mc_days(rng: random.Random) -> tuple[str, Spec]:
    question, right, wrong = rng.choice(
        [("How many days are in a week?", 7, [5, 10, 6]), ("How many months are in a year?", 12, [10, 11, 13]),
         ("How many minutes are in an hour?", 60, [100, 30, 24]), ("How many hours are in a day?", 24, [12, 20, 60])]
    )  # fmt: skip
    shown, spec, _ = _options(rng, [right, *wrong], right, "paren")
    return f"{question} {shown}", spec


# --- short word problems -------------------------------------------------------------------------


def wp_gives_away(rng: random.Random) -> tuple[str, Spec]:
    name, other = rng.sample(NAMES, 2)
    have, give = rng.randint(10, 40), rng.randint(2, 9)
    return (
        f"{name} has {have} apples and gives {give} to {other}. How many apples does {name} have left?",
        num(have - give),
    )


def wp_distance(rng: random.Random) -> tuple[str, Spec]:
    speed, hours = rng.choice([40, 50, 60, 80, 90]), rng.choice([2, 3, 4, 1.5, 2.5])
    return typed(rng, f"A car drives at {speed} km per hour for {hours} hours. How far does it go?"), num(
        speed * hours
    )


def wp_cost(rng: random.Random) -> tuple[str, Spec]:
    price, count = rng.choice([2, 3, 4, 1.5, 2.5]), rng.randint(3, 12)
    return typed(rng, f"Pens cost ${price} each. How much do {count} pens cost?"), num(price * count)


def wp_boxes(rng: random.Random) -> tuple[str, Spec]:
    boxes, each = rng.randint(3, 9), rng.choice([6, 8, 10, 12])
    return f"there are {boxes} boxes with {each} eggs in each box. how many eggs are there in total?", num(
        boxes * each
    )


def wp_days_to_read(rng: random.Random) -> tuple[str, Spec]:
    per_day = rng.choice([10, 12, 15, 20, 25])
    pages = per_day * rng.randint(4, 12)
    return typed(
        rng, f"Sam reads {per_day} pages a day. How many days will it take to read {pages} pages?"
    ), num(pages / per_day)


def wp_change(rng: random.Random) -> tuple[str, Spec]:
    count, price = rng.randint(2, 4), rng.choice([5, 8, 12, 15])
    note = 50 if count * price <= 50 else 100
    return (
        typed(
            rng,
            f"I bought {count} shirts at ${price} each and paid with a ${note} note. How much change do I get?",
        ),
        num(note - count * price),
    )


# --- lookups in a given text ---------------------------------------------------------------------


def lookup_age(rng: random.Random) -> tuple[str, Spec]:
    people = rng.sample(NAMES, 3)
    ages = _numbers(rng, 3, 18, 80)
    listed = ", ".join(f"{p} is {a}" for p, a in zip(people, ages))
    index = rng.randrange(3)
    return typed(rng, f"In the text '{listed}', how old is {people[index]}?"), num(ages[index])


def lookup_price(rng: random.Random) -> tuple[str, Spec]:
    goods = rng.sample(["apple", "bread", "milk", "cheese", "rice", "tea", "jam"], 3)
    prices = _numbers(rng, 3, 1, 9)
    listed = ", ".join(f"{g} ${p}" for g, p in zip(goods, prices))
    index = rng.randrange(3)
    return f"Given the prices: {listed}. What does {goods[index]} cost?", num(prices[index])


def lookup_room(rng: random.Random) -> tuple[str, Spec]:
    day, hour, room = rng.choice(_WEEKDAYS[:5]), rng.randint(1, 5), rng.randint(100, 450)
    note = f"The meeting is on {day} at {hour} pm in room {room}."
    question = rng.choice(
        [("What room is the meeting in?", num(room)), ("On which day is the meeting?", text(day))]
    )
    return f"{note} {question[0]}", question[1]


def lookup_field(rng: random.Random) -> tuple[str, Spec]:
    name, city = rng.choice(NAMES), rng.choice(["Paris", "Oslo", "Lima", "Cairo", "Rome", "Tokyo"])
    age = rng.randint(20, 70)
    record = f"Name: {name}; City: {city}; Age: {age}"
    field, answer = rng.choice([("city", text(city)), ("age", num(age)), ("name", text(name))])
    return typed(rng, f"From '{record}', what is the {field}?"), answer


def lookup_highest(rng: random.Random) -> tuple[str, Spec]:
    people = rng.sample(NAMES, 3)
    scores = _numbers(rng, 3, 50, 100)
    listed = ", ".join(f"{p} {s}" for p, s in zip(people, scores))
    return typed(rng, f"The scores are {listed}. Who scored the highest?"), text(
        people[scores.index(max(scores))]
    )


def lookup_pairs(rng: random.Random) -> tuple[str, Spec]:
    keys = rng.sample(["red", "green", "blue", "gold", "pink", "gray"], 4)
    values = _numbers(rng, 4, 1, 30)
    listed = ", ".join(f"{k}={v}" for k, v in zip(keys, values))
    index = rng.randrange(4)
    return f"In '{listed}', what is the value of {keys[index]}?", num(values[index])


TEMPLATES: dict[str, list[Template]] = {
    "units": [units_convert, units_how_many, units_celsius, units_fahrenheit, units_short, units_grams],
    "percentages": [percent_of, percent_what_share, percent_discount, percent_increase, percent_change, percent_score],
    "dates": [weekday_long, weekday_iso, days_between, date_after, leap_year, days_in_month],
    "sorting": [sort_ascending, sort_descending, sort_words, second_largest, median, sort_decimals],
    "counting": [count_words, count_vowels, count_even, count_above, count_letter, count_word_occurrences],
    "strings": [reverse_word, first_letter, uppercase, title_case, remove_spaces, initials],
    "sequences": [sum_range, factorial, next_in_sequence, nth_term, multiples_count, list_odds],
    "yesno": [is_prime, perfect_square, greater_than, palindrome, divisible, contains_word],
    "choice": [mc_largest, mc_arithmetic, mc_alphabetical, mc_even, mc_longest, mc_days],
    "word_problems": [wp_gives_away, wp_distance, wp_cost, wp_boxes, wp_days_to_read, wp_change],
    "lookup": [lookup_age, lookup_price, lookup_room, lookup_field, lookup_highest, lookup_pairs],
}  # fmt: skip
