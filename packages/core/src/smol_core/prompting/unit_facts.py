"""The conversion factor a unit task needs, stated for a small model that would guess it.

Asked "Convert 5 miles to kilometers.", SmolLM2-135M writes `5 * 0.621371`, the factor of the
other direction, and is sure of every token. Factors are facts, not reasoning: a 135M model cannot
be taught them by worked examples, only shown them. So when a task converts between two units this
module knows (length, mass, volume, time, temperature), the prompt gets one line with the factor
from the unit the task starts with to the one it asks for (`1 mile = 1.60934 kilometers`). A task
that names no such pair gets nothing (no prompt tokens are spent).
"""

from __future__ import annotations

import re

__all__ = ["unit_fact"]

# canonical (singular, plural), dimension, size in the dimension's base unit, the names people type
_UNITS: tuple[tuple[str, str, str, float, tuple[str, ...]], ...] = (
    ("mile", "miles", "length", 1609.344, ("mile", "miles", "mi")),
    ("kilometer", "kilometers", "length", 1000.0, ("kilometer", "kilometers", "kilometre", "kilometres", "km", "kms")),
    ("meter", "meters", "length", 1.0, ("meter", "meters", "metre", "metres", "m")),
    ("centimeter", "centimeters", "length", 0.01, ("centimeter", "centimeters", "centimetre", "centimetres", "cm")),
    ("millimeter", "millimeters", "length", 0.001, ("millimeter", "millimeters", "mm")),
    ("inch", "inches", "length", 0.0254, ("inch", "inches")),
    ("foot", "feet", "length", 0.3048, ("foot", "feet", "ft")),
    ("yard", "yards", "length", 0.9144, ("yard", "yards", "yd")),
    ("kilogram", "kilograms", "mass", 1.0, ("kilogram", "kilograms", "kg", "kgs", "kilo", "kilos")),
    ("gram", "grams", "mass", 0.001, ("gram", "grams", "g")),
    ("pound", "pounds", "mass", 0.45359237, ("pound", "pounds", "lb", "lbs")),
    ("ounce", "ounces", "mass", 0.028349523125, ("ounce", "ounces", "oz")),
    ("liter", "liters", "volume", 1.0, ("liter", "liters", "litre", "litres")),
    ("milliliter", "milliliters", "volume", 0.001, ("milliliter", "milliliters", "ml")),
    ("gallon", "gallons", "volume", 3.785411784, ("gallon", "gallons")),
    ("second", "seconds", "time", 1.0, ("second", "seconds", "sec", "secs")),
    ("minute", "minutes", "time", 60.0, ("minute", "minutes", "min", "mins")),
    ("hour", "hours", "time", 3600.0, ("hour", "hours", "hr", "hrs")),
    ("day", "days", "time", 86400.0, ("day", "days")),
    ("week", "weeks", "time", 604800.0, ("week", "weeks")),
)  # fmt: skip
_BY_NAME = {name: unit for unit in _UNITS for name in unit[4]}
_WORD = re.compile(r"(\d+(?:\.\d+)?)?\s*([a-z]+)")
_FAHRENHEIT = re.compile(r"\d\s*°?\s*f\b|\bfahrenheit\b")
_CELSIUS = re.compile(r"\d\s*°?\s*c\b|\bcelsius\b|\bcentigrade\b")


def unit_fact(task: str) -> str | None:
    """One line with the factor from the unit `task` gives a number in to the other unit it names
    of the same kind, or None when it names no such pair."""
    text = task.lower()
    temperature = _temperature_fact(text)
    if temperature is not None:
        return temperature
    named = [(bool(number), _BY_NAME[word]) for number, word in _WORD.findall(text) if word in _BY_NAME]
    source = next((unit for has_number, unit in named if has_number), None)
    if source is None:
        return None
    target = next((unit for _, unit in named if unit[2] == source[2] and unit[0] != source[0]), None)
    if target is None:
        return None
    factor = source[3] / target[3]
    return f"1 {source[0]} = {factor:.6g} {target[1]}"


def _temperature_fact(text: str) -> str | None:
    fahrenheit, celsius = _FAHRENHEIT.search(text), _CELSIUS.search(text)
    if not (fahrenheit and celsius):
        return None
    if fahrenheit.start() < celsius.start():
        return "Celsius = (Fahrenheit - 32) * 5 / 9"
    return "Fahrenheit = Celsius * 9 / 5 + 32"
