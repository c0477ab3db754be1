"""What a GBNF grammar accepts, for tests: the grammar compiled to a Python regular expression.

Why not llama.cpp: its grammar is applied while sampling, and it has no call that says whether a
given text is in the language. The grammars smol writes (`prompting/grammar.py`) are regular but
for right recursion, which is unrolled to a depth here; literals, character classes, groups,
alternatives and the quantifiers `* + ? {m,n}` are what they use. tests/models/llamacpp checks
that llama.cpp itself parses the same grammars.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(
    r'\s*(?:(?P<literal>"(?:\\.|[^"\\])*")|(?P<cls>\[(?:\\.|[^\]\\])*\])|(?P<name>[a-zA-Z_][a-zA-Z0-9_-]*)'
    r"|(?P<quant>\{\d+(?:,\d*)?\}|[*+?])|(?P<op>[()|]))"
)


def _unescape(body: str) -> str:
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        nxt = body[i + 1]
        if nxt == "x":
            out.append(chr(int(body[i + 2 : i + 4], 16)))
            i += 4
            continue
        out.append({"n": "\n", "t": "\t", "r": "\r"}.get(nxt, nxt))
        i += 2
    return "".join(out)


def _tokens(expression: str) -> list[tuple[str, str]]:
    tokens, position = [], 0
    expression = expression.strip()
    while position < len(expression):
        match = _TOKEN.match(expression, position)
        if match is None:
            raise ValueError(f"cannot read the grammar at {expression[position : position + 30]!r}")
        kind = match.lastgroup
        assert kind is not None
        tokens.append((kind, match.group(kind)))
        position = match.end()
        while position < len(expression) and expression[position].isspace():
            position += 1
    return tokens


def to_regex(grammar: str, max_depth: int = 6) -> re.Pattern[str]:
    """The grammar's `root` as a compiled regular expression (recursion unrolled `max_depth` deep)."""
    rules = {}
    for line in grammar.splitlines():
        if "::=" in line:
            name, expression = line.split("::=", 1)
            rules[name.strip()] = _tokens(expression)

    def rule(name: str, depth: dict[str, int]) -> str:
        if depth.get(name, 0) >= max_depth:
            return "(?!)"
        inner = dict(depth)
        inner[name] = inner.get(name, 0) + 1
        return "(?:" + sequence(rules[name], inner) + ")"

    def sequence(tokens: list[tuple[str, str]], depth: dict[str, int]) -> str:
        alternatives, current, stack = [], [], []
        parts: list[str] = current
        for kind, text in tokens:
            if kind == "literal":
                parts.append(re.escape(_unescape(text[1:-1])))
            elif kind == "cls":
                parts.append(text.replace("\\x", "\\x"))
            elif kind == "name":
                parts.append(rule(text, depth))
            elif kind == "quant":
                last = parts.pop()
                quant = text if text[0] != "{" or "," in text else text
                parts.append(f"(?:{last}){quant}")
            elif text == "(":
                stack.append((alternatives, parts))
                alternatives, parts = [], []
            elif text == ")":
                group = "|".join([*["".join(a) for a in alternatives], "".join(parts)])
                alternatives, parts = stack.pop()
                parts.append(f"(?:{group})")
            elif text == "|":
                alternatives.append(parts)
                parts = []
        return "|".join([*["".join(a) for a in alternatives], "".join(parts)])

    return re.compile(rule("root", {}), re.DOTALL)


def accepts(grammar: str, text: str) -> bool:
    return to_regex(grammar).fullmatch(text) is not None
