"""Worked examples for small models, picked for each task.

A model of a few hundred million parameters does not follow instructions so much as copy the
nearest pattern: shown how `max`, `str.count` or a list comprehension answers a task like the one at
hand, it adapts the example; shown an unrelated one, it copies that instead. So instead of one fixed
set of examples, agents on small models get the few worked examples whose wording is closest to the
task (word overlap, weighted by rarity, with synonyms folded together), as earlier turns of the chat.

The examples are everyday one-step computations (arithmetic, strings, lists), none of them a task
of `bench/agent_default_model.py`, and everyday tasks by class (`CLASS_EXAMPLES`), each taken from
the training part of the everyday bank (`bench/everyday_bank.py`), never from its held-out part.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

from smol_core.prompting.answer_form import options


@dataclass(frozen=True)
class WorkedExample:
    task: str
    code: str


WORKED_EXAMPLES: tuple[WorkedExample, ...] = tuple(
    WorkedExample(task, code)
    for task, code in (
        ("What is 7 times the sum of 3 and 4?", "result = 7 * (3 + 4)\nfinal_answer(result)"),
        ("What is 250 plus 175?", "result = 250 + 175\nfinal_answer(result)"),
        ("What is 90 minus 45?", "result = 90 - 45\nfinal_answer(result)"),
        ("What is 96 divided by 8?", "result = 96 / 8\nfinal_answer(result)"),
        ("What is 5 cubed?", "result = 5 ** 3\nfinal_answer(result)"),
        ("What is 20 percent of 80?", "result = 80 * 20 / 100\nfinal_answer(result)"),
        ("What is the square root of 81?", "import math\nfinal_answer(math.sqrt(81))"),
        ("What is the remainder when 50 is divided by 6?", "result = 50 % 6\nfinal_answer(result)"),
        ("Round 3.14159 to two decimals.", "result = round(3.14159, 2)\nfinal_answer(result)"),
        ("How many minutes are in 3 hours?", "minutes = 3 * 60\nfinal_answer(minutes)"),
        ("Write the word 'stressed' backwards.", "word = 'stressed'\nfinal_answer(word[::-1])"),
        ("Make 'good morning' all capital letters.", "text = 'good morning'\nfinal_answer(text.upper())"),
        ("Capitalize the words of 'new york city'.", "text = 'new york city'\nfinal_answer(text.title())"),
        ("What is the length of the text 'hi there'?", "text = 'hi there'\nfinal_answer(len(text))"),
        ("How often does 'o' occur in 'foo boo'?", "text = 'foo boo'\nfinal_answer(text.count('o'))"),
        (
            "How many words are in the sentence 'the sky is blue'?",
            "sentence = 'the sky is blue'\nfinal_answer(len(sentence.split()))",
        ),
        (
            "What is the second word of 'big red ball'?",
            "words = 'big red ball'.split()\nfinal_answer(words[1])",
        ),
        (
            "Put the words 'x', 'y' and 'z' together separated by spaces.",
            "words = ['x', 'y', 'z']\nfinal_answer(' '.join(words))",
        ),
        (
            "Change 'sun' to 'moon' in 'the sun is up'.",
            "text = 'the sun is up'\nfinal_answer(text.replace('sun', 'moon'))",
        ),
        ("Remove the spaces around '  hello  '.", "text = '  hello  '\nfinal_answer(text.strip())"),
        ("Does 'level' read the same backwards?", "word = 'level'\nfinal_answer(word == word[::-1])"),
        ("What are the first three letters of 'football'?", "word = 'football'\nfinal_answer(word[:3])"),
        (
            "How many vowels are in the word 'education'?",
            "word = 'education'\nfinal_answer(sum(1 for c in word if c in 'aeiou'))",
        ),
        ("Does 'carpet' contain 'pet'?", "text = 'carpet'\nfinal_answer('pet' in text)"),
        ("Add up the numbers 4, 8 and 15.", "numbers = [4, 8, 15]\nfinal_answer(sum(numbers))"),
        ("What is the highest value in [12, 5, 30]?", "numbers = [12, 5, 30]\nfinal_answer(max(numbers))"),
        ("What is the lowest value in [12, 5, 30]?", "numbers = [12, 5, 30]\nfinal_answer(min(numbers))"),
        ("How long is the list ['a', 'b', 'c']?", "items = ['a', 'b', 'c']\nfinal_answer(len(items))"),
        ("What is the mean of 3, 6 and 9?", "numbers = [3, 6, 9]\nfinal_answer(sum(numbers) / len(numbers))"),
        (
            "Order [7, 2, 5] from largest to smallest.",
            "numbers = [7, 2, 5]\nfinal_answer(sorted(numbers, reverse=True))",
        ),
        (
            "Square each number in the list [1, 2, 3].",
            "numbers = [1, 2, 3]\nfinal_answer([n * n for n in numbers])",
        ),
        (
            "Keep only the numbers above 4 in [3, 7, 1, 9].",
            "numbers = [3, 7, 1, 9]\nfinal_answer([n for n in numbers if n > 4])",
        ),
        (
            "Multiply together the numbers 3, 5 and 2.",
            "import math\nfinal_answer(math.prod([3, 5, 2]))",
        ),
        (
            "What is the total of the numbers above 10 in [4, 11, 20]?",
            "numbers = [4, 11, 20]\nfinal_answer(sum(n for n in numbers if n > 10))",
        ),
        (
            "Which numbers in [1, 2, 2, 3, 3] are unique?",
            "numbers = [1, 2, 2, 3, 3]\nfinal_answer(sorted(set(numbers)))",
        ),
        ("What is the last item of [6, 2, 8]?", "items = [6, 2, 8]\nfinal_answer(items[-1])"),
        (
            "What is the difference between the largest and the smallest number in [3, 7, 1]?",
            "numbers = [3, 7, 1]\nfinal_answer(max(numbers) - min(numbers))",
        ),
        (
            "What is the price of 'pear' in {'apple': 3, 'pear': 5}?",
            "prices = {'apple': 3, 'pear': 5}\nfinal_answer(prices['pear'])",
        ),
        # two operations in one expression: a small model composes them when shown how
        ("What is 9 times 4, minus 6?", "result = 9 * 4 - 6\nfinal_answer(result)"),
        (
            "What is the sum of the cubes of the numbers in [1, 2]?",
            "numbers = [1, 2]\nfinal_answer(sum(n ** 3 for n in numbers))",
        ),
        ("Make 'tea' upper case and reverse it.", "text = 'tea'\nfinal_answer(text.upper()[::-1])"),
        (
            "What is the sum of the largest and the smallest number in [3, 9, 4]?",
            "numbers = [3, 9, 4]\nfinal_answer(max(numbers) + min(numbers))",
        ),
        (
            "Halve every number in [4, 8] and add them up.",
            "numbers = [4, 8]\nfinal_answer(sum(n / 2 for n in numbers))",
        ),
        (
            "Sort [6, 2, 4] and give its first element.",
            "numbers = sorted([6, 2, 4])\nfinal_answer(numbers[0])",
        ),
        (
            "What is the sum of the last two numbers of [2, 5, 7]?",
            "numbers = [2, 5, 7]\nfinal_answer(sum(numbers[-2:]))",
        ),
        ("How many different letters are in 'apple'?", "word = 'apple'\nfinal_answer(len(set(word)))"),
        (
            "What is the length of the shortest word in 'in the morning'?",
            "words = 'in the morning'.split()\nfinal_answer(min(len(w) for w in words))",
        ),
        ("Count the letter 'o' in 'foo' and add 5.", "count = 'foo'.count('o')\nfinal_answer(count + 5)"),
    )
)

# Everyday tasks by class (units, percentages, dates, sorting, counting, strings, sequences, yes/no,
# multiple choice, word problems, look-ups), each a task of the training part of the bench's
# everyday bank (bench/everyday_bank.py), never of its held-out part. Dates and factorials go
# through the standard library: a small model's own calendar arithmetic is wrong more often than not.
CLASS_EXAMPLES: tuple[WorkedExample, ...] = tuple(
    WorkedExample(task, code)
    for task, code in (
        ("How many milliliters are in 6 liters?", "final_answer(6 * 1000)"),
        ("what is 0 degrees Celsius in Fahrenheit?", "final_answer(0 * 9 / 5 + 32)"),
        ("convert 14F to celsius", "final_answer((14 - 32) * 5 / 9)"),
        ("How many kilograms is 1500 grams?", "final_answer(1500 / 1000)"),
        ("20% of 360", "final_answer(360 * 20 / 100)"),
        ("A jacket costs $80 and is 30% off. What is the sale price?", "final_answer(80 * (100 - 30) / 100)"),
        ("increase 400 by 20%.", "final_answer(400 * (100 + 20) / 100)"),
        (
            "the price went from 50 to 37 dollars. what is the percent change?",
            "final_answer((37 - 50) / 50 * 100)",
        ),
        (
            "What day of the week was 14 January 2006?",
            "import datetime\nfinal_answer(datetime.date(2006, 1, 14).strftime('%A'))",
        ),
        (
            "how many days are there between February 9, 2025 and June 5, 2025?",
            "import datetime\nfinal_answer((datetime.date(2025, 6, 5) - datetime.date(2025, 2, 9)).days)",
        ),
        (
            "What date is 100 days after 2024-09-05?",
            "import datetime\nfinal_answer(str(datetime.date(2024, 9, 5) + datetime.timedelta(days=100)))",
        ),
        (
            "Is 2016 a leap year?",
            "year = 2016\nfinal_answer(year % 4 == 0 and (year % 100 != 0 or year % 400 == 0))",
        ),
        (
            "Sort the list [20, 46, 41, 71] in ascending order.",
            "numbers = [20, 46, 41, 71]\nfinal_answer(sorted(numbers))",
        ),
        (
            "put these words in alphabetical order: castle, zebra, chair, bridge.",
            "words = ['castle', 'zebra', 'chair', 'bridge']\nfinal_answer(sorted(words))",
        ),
        (
            "What is the second largest number in [92, 53, 41, 7, 30, 25]?",
            "numbers = [92, 53, 41, 7, 30, 25]\nfinal_answer(sorted(numbers)[-2])",
        ),
        (
            "What is the median of [36, 89, 98, 32, 93, 96, 34]?",
            "import statistics\nfinal_answer(statistics.median([36, 89, 98, 32, 93, 96, 34]))",
        ),
        (
            "count the numbers greater than 25 in [55, 61, 65, 73, 79]",
            "numbers = [55, 61, 65, 73, 79]\nfinal_answer(len([n for n in numbers if n > 25]))",
        ),
        ("How many s's are in mississippi?", "final_answer('mississippi'.count('s'))"),
        (
            "How many times does the word 'sun' appear in 'cloud sun sun pepper sun lemon'",
            "words = 'cloud sun sun pepper sun lemon'.split()\nfinal_answer(words.count('sun'))",
        ),
        ("What is the third letter of 'mango'?", "word = 'mango'\nfinal_answer(word[2])"),
        (
            "remove all spaces from 'horse bread lemon'.",
            "text = 'horse bread lemon'\nfinal_answer(text.replace(' ', ''))",
        ),
        ("What is 4 factorial?", "import math\nfinal_answer(math.factorial(4))"),
        (
            "What is the next number in the sequence 14, 17, 20, 23?",
            "numbers = [14, 17, 20, 23]\nfinal_answer(numbers[-1] + numbers[1] - numbers[0])",
        ),
        (
            "How many multiples of 6 are there from 1 to 30",
            "final_answer(len([n for n in range(1, 31) if n % 6 == 0]))",
        ),
        ("List the even numbers from 7 to 14.", "final_answer([n for n in range(7, 15) if n % 2 == 0])"),
        ("is 29 a prime number", "n = 29\nfinal_answer(all(n % d != 0 for d in range(2, n)))"),
        (
            "Is 169 a perfect square? Answer yes or no.",
            "import math\nfinal_answer('yes' if math.isqrt(169) ** 2 == 169 else 'no')",
        ),
        (
            "Does the sentence 'forest zebra grape cloud stone' contain the word 'orange'? Answer yes or no.",
            "words = 'forest zebra grape cloud stone'.split()\nfinal_answer('yes' if 'orange' in words else 'no')",
        ),
        (
            "What is 12 times 10? (a) 22 (b) 120 (c) 110 (d) 132. Answer with the letter.",
            "options = {'a': 22, 'b': 120, 'c': 110, 'd': 132}\nfinal_answer([k for k in options if options[k] == 12 * 10][0])",
        ),
        (
            "Which of these is an even number? A: 59 B: 25 C: 19 D: 26",
            "options = {'A': 59, 'B': 25, 'C': 19, 'D': 26}\nfinal_answer([k for k in options if options[k] % 2 == 0][0])",
        ),
        (
            "Which is the longest word? A) dog B) crocodile C) cat",
            "options = {'A': 'dog', 'B': 'crocodile', 'C': 'cat'}\nfinal_answer(max(options, key=lambda k: len(options[k])))",
        ),
        (
            "Jade has 10 apples and gives 2 to Ivo. How many apples does Jade have left?",
            "apples = 10 - 2\nfinal_answer(apples)",
        ),
        ("A car drives at 50 km per hour for 1.5 hours. How far does it go", "final_answer(50 * 1.5)"),
        ("Sam reads 12 pages a day. How many days will it take to read 72 pages?", "final_answer(72 / 12)"),
        (
            "Given the prices: bread $4, rice $1, cheese $7. What does rice cost?",
            "prices = {'bread': 4, 'rice': 1, 'cheese': 7}\nfinal_answer(prices['rice'])",
        ),
        (
            "From 'Name: Carl; City: Paris; Age: 47', what is the name?",
            "record = {'Name': 'Carl', 'City': 'Paris', 'Age': 47}\nfinal_answer(record['Name'])",
        ),
        (
            "In 'red=14, pink=29, gray=16, blue=20', what is the value of gray?",
            "values = {'red': 14, 'pink': 29, 'gray': 16, 'blue': 20}\nfinal_answer(values['gray'])",
        ),
    )
)


def worked_examples() -> tuple[WorkedExample, ...]:
    """The examples a small model is shown: the one-step computations and the everyday classes."""
    return WORKED_EXAMPLES + CLASS_EXAMPLES


_STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "in",
        "is",
        "are",
        "what",
        "to",
        "and",
        "with",
        "by",
        "from",
        "for",
        "it",
        "its",
        "this",
        "that",
        "do",
        "does",
        "all",
        "each",
        "every",
        "list",
        "string",
        "number",
        "numbers",
        "word",
        "words",
        "text",
        "sentence",
        "give",
        "me",
        "find",
        "value",
        "values",
        "which",
    ]
)
# Words that ask for the same operation, folded onto the first word of their group.
_SYNONYM_GROUPS = (
    "times multiply multiplied product prod",
    "plus add added sum total adding",
    "minus subtract subtracted difference less",
    "divided divide division quotient half",
    "power squared cubed square cube exponent",
    "remainder modulo mod",
    "percent percentage",
    "root sqrt",
    "round rounded decimal decimals",
    "reverse reversed backwards backward",
    "upper uppercase capital capitals",
    "lower lowercase small",
    "title capitalize capitalized",
    "length long characters letters many count often occur occurs appear appears",
    "first second third last index",
    "join joined together combine separated comma dash space",
    "replace change substitute",
    "strip spaces trim",
    "palindrome same",
    "largest biggest highest maximum max greatest",
    "smallest lowest minimum min least",
    "average mean",
    "sort sorted order ascending descending",
    "even odd above below greater filter only keep",
    "unique distinct duplicates set",
    "every each map",
    "contain contains include includes",
)
_SYNONYMS = {word: group.split()[0] for group in _SYNONYM_GROUPS for word in group.split()}
# Arithmetic a small model confuses when shown the wrong one ("%" for "divided by").
_OPERATIONS = frozenset(["times", "plus", "minus", "divided", "power", "remainder", "percent", "root"])


def _terms(text: str) -> frozenset[str]:
    terms = set()
    text = text.replace("%", " percent ")  # "15% of 240" asks what "15 percent of 240" asks
    text = re.sub(r"(?i)\bhow many times\b", "how often", text)  # counts; "times" multiplies
    for word in re.findall(r"[a-z]+", text.lower()):
        if word in _STOP_WORDS:
            continue
        if word not in _SYNONYMS and word.endswith("s") and len(word) > 3:
            word = word[:-1]
        terms.add(_SYNONYMS.get(word, word))
    return frozenset(terms)


def _kind(text: str) -> str:
    """What the task computes on: lettered options, a list, a string or plain numbers."""
    if options(text):
        return "choice"
    if "[" in text or "{" in text or re.search(r"\d+, \d+", text):
        return "list"
    return "string" if "'" in text or '"' in text else "number"


@lru_cache(maxsize=4)
def _index(examples: tuple[WorkedExample, ...]) -> tuple[list[frozenset[str]], dict[str, float]]:
    terms = [_terms(example.task) for example in examples]
    counts: dict[str, int] = {}
    for example_terms in terms:
        for term in example_terms:
            counts[term] = counts.get(term, 0) + 1
    weights = {term: math.log(1 + len(examples) / count) for term, count in counts.items()}
    return terms, weights


def rank_examples(task: str, examples: tuple[WorkedExample, ...] | None = None) -> list[WorkedExample]:
    """All examples (by default `worked_examples()`), the closest to `task` first."""
    examples = worked_examples() if examples is None else examples
    terms, weights = _index(examples)
    task_terms, task_kind = _terms(task), _kind(task)

    def score(position: int) -> tuple[float, int]:
        kind = _kind(examples[position].task)
        if kind == "choice" and task_kind != "choice":
            return math.inf, position  # picking a letter is copied into tasks that have no options
        same_kind = 1.0 if kind == task_kind else 0.0
        # an operation the example does but the task does not ask for (`%` shown for "divided by")
        # is what a small model copies wrongly: such an example gets no credit for the operation
        # words it shares, and moves down by the weight of those it adds
        extra = sum(weights[term] for term in (terms[position] - task_terms) & _OPERATIONS)
        counted = task_terms & terms[position] - (_OPERATIONS if extra else frozenset())
        shared = sum(weights[term] for term in counted)
        return -(shared + same_kind - extra), position

    return [examples[position] for position in sorted(range(len(examples)), key=score)]


def select_examples(
    task: str, count: int = 3, examples: tuple[WorkedExample, ...] | None = None
) -> list[WorkedExample]:
    """The `count` examples closest to `task`, the closest last (nearest the task in the chat)."""
    examples = worked_examples() if examples is None else examples
    if count <= 0 or not examples:
        return []
    return rank_examples(task, examples)[:count][::-1]


def example_sets(
    task: str, sets: int, count: int = 3, examples: tuple[WorkedExample, ...] | None = None
) -> list[list[WorkedExample]]:
    """`sets` different choices of `count` examples for `task`, each with its closest last.

    For drafting several answers (`CodeAgent` with `answer_drafts`): under greedy decoding the same
    prompt always gives the same reply, so each draft sees other examples. The first set is
    `select_examples`; the second takes every other one of the closest `2 * count - 1` (fewer near
    twins of one pattern, which a small model may copy wrongly); the next sets move further down.
    """
    examples = worked_examples() if examples is None else examples
    if count <= 0 or not examples:
        return [[] for _ in range(sets)]
    ranked = rank_examples(task, examples)
    choices = [ranked[:count], ranked[: 2 * count - 1 : 2]]
    choices += [ranked[count * k : count * (k + 1)] for k in range(1, sets)]
    return [(choice or ranked[:count])[::-1] for choice in choices[:sets]]
