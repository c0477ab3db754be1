"""Task sets beyond one-step computation, for `bench/agent_default_model.py` (issue 15).

- TWO_STEP_TASKS: two operations composed (a list then an aggregate, a string then a method...);
- TOOL_TASKS: tasks that need one of TOOLS (four look-up tools over a small fixed world), sometimes
  twice or with arithmetic on the result;
- HELDOUT2_*: a held-out set of each kind, written before the last prompt change and run once.

TWO_STEP_TASKS and TOOL_TASKS were written before any tuning for them, then tuned on; the held-out
sets were not looked at while tuning. None of these tasks is a worked example of `prompting/examples.py`.
"""

from __future__ import annotations

from typing import Any

from smol_core import tool

TEMPERATURES = {"paris": 18, "oslo": 4, "cairo": 31, "lima": 22, "tokyo": 16, "rome": 24}
PRICES = {"apple": 2, "bread": 3, "cheese": 7, "milk": 1, "egg": 1, "coffee": 9}
POPULATIONS = {"paris": 2, "oslo": 1, "cairo": 10, "lima": 11, "tokyo": 14, "rome": 3}
CAPITALS = {"france": "Paris", "norway": "Oslo", "egypt": "Cairo", "peru": "Lima", "japan": "Tokyo"}
CAPITALS["italy"] = "Rome"


def _key(name: str) -> str:
    return name.strip().strip("'\"").lower()


@tool
def get_temperature(city: str) -> int:
    """Gets today's temperature in a city, in degrees Celsius.

    Args:
        city: The city's name, e.g. 'Paris'.
    """
    return TEMPERATURES[_key(city)]


@tool
def get_price(item: str) -> int:
    """Gets the price of one item at the grocery, in euros.

    Args:
        item: The item's name, e.g. 'apple'.
    """
    return PRICES[_key(item).removesuffix("s") if _key(item) not in PRICES else _key(item)]


@tool
def get_population(city: str) -> int:
    """Gets the population of a city, in millions.

    Args:
        city: The city's name, e.g. 'Paris'.
    """
    return POPULATIONS[_key(city)]


@tool
def get_capital(country: str) -> str:
    """Gets the capital city of a country.

    Args:
        country: The country's name, e.g. 'France'.
    """
    return CAPITALS[_key(country)]


TOOLS = [get_temperature, get_price, get_population, get_capital]

TWO_STEP_TASKS: list[tuple[str, Any]] = [
    ("What is the sum of the squares of the numbers in [1, 2, 3]?", 14),
    ("Reverse the string 'abc' and convert it to upper case.", "CBA"),
    ("What is 12 times 3, plus 10?", 46),
    ("What is the average of the largest and the smallest number in [2, 8, 5]?", 5),
    ("How many different words are in 'the cat saw the dog'?", 4),
    ("Sort the list [3, 1, 2] and give its last element.", 3),
    ("What is the sum of the list [1, 2, 3] multiplied by 4?", 24),
    ("What is the length of the longest word in 'a bb ccc'?", 3),
    ("Double every number in [1, 2, 3] and add them up.", 12),
    ("What is the sum of the first three numbers of [5, 1, 4, 9]?", 10),
    ("Count the letter 'a' in 'banana' and multiply the count by 2.", 6),
    ("What is 2 to the power of 5, minus 2?", 30),
]

TOOL_TASKS: list[tuple[str, Any]] = [
    ("What is the temperature in Oslo?", 4),
    ("What is the capital of Japan?", "Tokyo"),
    ("How much does cheese cost?", 7),
    ("What is the population of Cairo in millions?", 10),
    ("How much do 3 apples cost?", 6),
    ("What is the capital of Peru?", "Lima"),
    ("What is the temperature in the capital of Norway?", 4),
    ("How much do bread and milk cost together?", 4),
    ("What is the temperature in Lima?", 22),
    ("What is the population of Paris in millions?", 2),
    ("What is the capital of France?", "Paris"),
    ("How many degrees warmer is Cairo than Paris?", 13),
]

# Written before the last change, not run while tuning; run once at the end.
HELDOUT2_ONE_STEP: list[tuple[str, Any]] = [
    ("What is 56 divided by 8?", 7),
    ("What is 19 times 4?", 76),
    ("What is 300 minus 42?", 258),
    ("Reverse the string 'planet'.", "tenalp"),
    ("Convert 'quiet night' to upper case.", "QUIET NIGHT"),
    ("How many characters are in 'window'?", 6),
    ("What is the sum of the list [6, 9, 12]?", 27),
    ("What is the largest number in [21, 8, 35, 2]?", 35),
    ("What is the average of the list [4, 8, 12]?", 8),
    ("Sort the list [9, 4, 6] in ascending order.", [4, 6, 9]),
]
HELDOUT2_TWO_STEP: list[tuple[str, Any]] = [
    ("What is the sum of the squares of the numbers in [2, 3]?", 13),
    ("Reverse the string 'dog' and convert it to upper case.", "GOD"),
    ("What is 5 times 6, plus 4?", 34),
    ("Triple every number in [1, 2, 4] and add them up.", 21),
    ("What is the sum of the first two numbers of [7, 3, 8]?", 10),
    ("What is the difference between the largest and the smallest number in [4, 10, 6]?", 6),
]
HELDOUT2_TOOL: list[tuple[str, Any]] = [
    ("What is the temperature in Rome?", 24),
    ("What is the capital of Italy?", "Rome"),
    ("How much does coffee cost?", 9),
    ("What is the population of Tokyo in millions?", 14),
    ("How much do 4 eggs cost?", 4),
    ("What is the temperature in the capital of Egypt?", 31),
]

# Tasks that need none of TOOLS, run with TOOLS given: an agent must not call a look-up tool for
# arithmetic because it has one (issue 15: a small model with tools used to be made to call one).
NO_TOOL_NEEDED: list[tuple[str, Any]] = [
    ("What is 17 times 23?", 391),
    ("What is 1000 minus 357?", 643),
    ("Reverse the string 'hello'.", "olleh"),
    ("What is the sum of the list [3, 5, 7, 9]?", 24),
    ("What is the largest number in the list [4, 18, 7, 11]?", 18),
    ("How many times does the letter 'a' appear in 'banana'?", 3),
]

# Session 6: written after the draft ranking was first measured and before the tool-or-not choice
# was built; run once, at the end.
HELDOUT3_ONE_STEP: list[tuple[str, Any]] = [
    ("What is 88 plus 47?", 135),
    ("What is 13 times 7?", 91),
    ("What is 121 divided by 11?", 11),
    ("Reverse the string 'garden'.", "nedrag"),
    ("Convert 'Blue Sky' to lower case.", "blue sky"),
    ("How many characters are in the word 'sandwich'?", 8),
    ("What is the smallest number in [14, 3, 27, 9]?", 3),
    ("What is the sum of [11, 22, 33]?", 66),
    ("How many items are in the list [7, 7, 8]?", 3),
    ("Sort the list [30, 10, 20] in ascending order.", [10, 20, 30]),
]
HELDOUT3_TWO_STEP: list[tuple[str, Any]] = [
    ("What is the sum of the squares of the numbers in [1, 4]?", 17),
    ("Reverse the string 'cat' and convert it to upper case.", "TAC"),
    ("What is 8 times 9, minus 2?", 70),
    ("Double every number in [3, 5] and add them up.", 16),
    ("What is the sum of the last two numbers of [1, 6, 4]?", 10),
    ("Sort the list [9, 2, 5] and give its first element.", 2),
    ("What is the largest number in [3, 8, 1] times 2?", 16),
    ("How many different letters are in 'letter'?", 4),
    ("What is the length of the shortest word in 'go home now'?", 2),
    ("Count the letter 'e' in 'tree' and add 10.", 12),
    ("What is 3 to the power of 3, plus 3?", 30),
    ("What is the average of the numbers in [1, 2, 3] times 10?", 20),
]
HELDOUT3_TOOL: list[tuple[str, Any]] = [
    ("What is the temperature in Paris?", 18),
    ("What is the capital of Norway?", "Oslo"),
    ("How much does milk cost?", 1),
    ("What is the population of Lima in millions?", 11),
    ("How much do 2 cheeses cost?", 14),
    ("What is the temperature in the capital of Japan?", 16),
    ("What is 45 plus 38?", 83),
    ("Reverse the string 'moon'.", "noom"),
]

# Session 6, written before chained tool examples were built; run once, after.
HELDOUT4_TOOL: list[tuple[str, Any]] = [
    ("What is the population of the capital of Peru in millions?", 11),
    ("What is the temperature in the capital of Italy?", 24),
    ("How much do 5 apples cost?", 10),
    ("How much do cheese and bread cost together?", 10),
    ("What is the capital of Egypt?", "Cairo"),
    ("How much does an egg cost?", 1),
    ("What is the temperature in Oslo plus 10?", 14),
    ("What is 9 times 8?", 72),
]
