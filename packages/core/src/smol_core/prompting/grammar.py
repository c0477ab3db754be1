"""A GBNF grammar for the code-action format, for models that decode under a grammar (llama.cpp).

With it every reply is an optional `Thought: <one line>`, then a code block, and nothing after it:
the model can neither skip the code, nor ramble, nor invent its own observation after the block —
the three failures that make the smallest models useless as agents. The format stays the plain
text of the prompt's examples, which small models copy far better than code escaped inside a JSON
string.

Inside the block, each line must look like the start of a Python statement: a keyword, a name
followed by an operator, a call, an attribute or a subscript, or a literal. Prose ("The result is
11."), Markdown fences, tags and made-up outputs ("Output: 12") cannot be written, which is where a
small model's code otherwise derails. Text inside triple-quoted strings is free, so long string
literals (reports, templates) stay possible. A line that opens a block (`with open(path) as f:`,
`for x in xs:`, `else:`) must be followed by an indented line: a header with no body is a
SyntaxError, and a small model that wrote one kept writing it, step after step. Only a header's line
ends with a colon.

The task's text goes into the grammar (`task_comment`): whatever bytes it holds, they reach the
grammar escaped, never as grammar syntax (a NUL or a quote in a task broke the grammar).
"""

from __future__ import annotations

import keyword
from collections.abc import Sequence

_KEYWORDS = sorted({*keyword.kwlist, *keyword.softkwlist} - {"False", "None", "True", "_"})
# Statements that can open a top-level line (`return`, `yield`, `break`... only make sense indented;
# `and`, `in`, `not`... only continue an expression).
_TOP_KEYWORDS = sorted(
    set(_KEYWORDS)
    - {"and", "as", "break", "case", "continue", "in", "is", "lambda", "not", "or", "return", "type", "yield"}
)

# A name that is not exactly `print`: GBNF has no negative look-ahead, so spell it out.
_NOT_PRINT = (
    'topname ::= [a-oq-zA-Z_] [a-zA-Z0-9_]* | "p" ( [a-qs-zA-Z0-9_] [a-zA-Z0-9_]* | "r" '
    '( [a-hj-zA-Z0-9_] [a-zA-Z0-9_]* | "i" ( [a-mo-zA-Z0-9_] [a-zA-Z0-9_]* | "n" '
    '( [a-su-zA-Z0-9_] [a-zA-Z0-9_]* | "t" [a-zA-Z0-9_]+ )? )? )? )?'
)


def _literal(text: str) -> str:
    """`text` as a GBNF string literal: backslash, quote and every control character escaped (GBNF
    reads `\\xHH`), so no character of it is read as grammar syntax."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    escaped = "".join(f"\\x{ord(c):02x}" if ord(c) < 0x20 or ord(c) == 0x7F else c for c in escaped)
    return f'"{escaped}"'


def _alternatives(words: list[str]) -> str:
    return "( " + " | ".join(_literal(word) for word in words) + " )"


def task_comment(task: str, max_chars: int = 400) -> str:
    """The task as Python comment lines, to open a code block with (see `code_action_grammar`)."""
    text = " ".join("".join(c if c.isprintable() else " " for c in task).split())
    if len(text) > max_chars:
        text = text[: max_chars - 3].rstrip() + "..."
    return f"# {text}\n"


def code_action_grammar(
    opening: str = "<code>",
    closing: str = "</code>",
    thought_prefix: str | None = "Thought: ",
    max_thought_chars: int = 300,
    require_final_answer: bool = False,
    max_code_lines: int = 40,
    preamble: str = "",
    first_call: Sequence[str] = (),
) -> str:
    """`Thought: <line>\\n<opening>\\n<preamble><python lines>\\n<closing>`.

    Args:
        opening: the code block's opening tag.
        closing: the code block's closing tag.
        thought_prefix: the thought line's prefix; None leaves the thought out (the block comes first).
        max_thought_chars: cap on the thought line.
        require_final_answer: for an agent with no tools to observe, every value the code can print
            it can also pass straight to `final_answer`, and a small model that prints a result rarely
            comes back to answer it. The block then ends with a top-level `final_answer(...)` line, and
            a top-level `print(...)` may only come right before it.
        max_code_lines: cap on the lines of a block: a small model that starts repeating a line runs
            into the cap instead of into the token limit.
        preamble: text forced at the top of the block, such as `task_comment(task)`: a small model
            completes code under a comment that states the task far better than it writes code for a
            task a few hundred tokens back.
        first_call: tool names: the block's first line must assign the result of calling one of them
            (`x = get_price(...`). A small model given tools otherwise computes an answer from nothing
            (or prints and never answers); made to start with a call, it picks the tool whose name
            matches the task, and the line after can answer with what it returned.
    """
    if not closing:
        raise ValueError("The closing code tag must not be empty.")
    if max_code_lines < 1:
        raise ValueError("max_code_lines must be at least 1.")
    first = "firstcall " if first_call else ""
    lines = max_code_lines - (1 if first_call else 0)
    if require_final_answer:
        if lines >= 2:
            body = f"{first}line{{0,{lines - 2}}} printline? answer"
        else:
            body = f"{first}answer"
    else:
        body = f"{first}line{{{0 if first_call else 1},{max(lines, 1)}}}"
    block_start = _literal(opening + "\n" + preamble)
    head = f"{_literal(thought_prefix)} thought {_literal(chr(10))} " if thought_prefix else ""
    top_name = "topname" if require_final_answer else "name"
    rules = [
        f"root ::= {head}{block_start} {body} {_literal(closing)}",
        # a line; one that opens a block (it ends with a colon) takes its first indented line with it
        'line ::= ( indent stmt | top ) ( "\\n" | header )',
        'header ::= ":" [ \\t]* "\\n" indent stmt ( "\\n" | header )',
        "indent ::= [ \\t]{1,32}",
        # at the top level: no bare literals, no annotations (`Output: 12`), no comparisons
        f"top ::= {_alternatives(_TOP_KEYWORDS)} ( [ (\\[] rest )? | {top_name} topafter? | [\\[(@] rest",
        # after a name at the top level: an assignment, a call, an attribute, a subscript, a tuple
        'topafter ::= " "* ( "=" | [-+*/%&|^@] "=" | "//=" | "**=" | ">>=" | "<<=" ) rest | [(\\[.,;] rest',
        f"stmt ::= {_alternatives(_KEYWORDS)} ( [ (\\[] rest )? | name after? | start rest",
        # after a name: an operator, a call, an attribute, a subscript, an annotation (`x: int`);
        # never a second word (prose)
        'after ::= " "* ( [-=+*/%<>!&|^~] rest | ":" char* last ) | [(\\[.,;] rest',
        "start ::= [\\[({\"'0-9*@.-]",
        "name ::= [a-zA-Z_] [a-zA-Z0-9_]*",
        # the rest of a line, never ending with a colon (only a header does, through `header`); a
        # triple-quoted string may run over several lines and hold any text
        "rest ::= ( char* last )?",
        'char ::= [^\\n"\'] | "\\"" | "\'" | tq',
        'last ::= [^\\n:"\'] | "\\"" | "\'" | tq',
        'tq ::= "\\"\\"\\"" ( [^"] | "\\"" [^"] | "\\"\\"" [^"] )* "\\"\\"\\"" '
        "| \"'''\" ( [^'] | \"'\" [^'] | \"''\" [^'] )* \"'''\"",
    ]
    if thought_prefix:
        rules.append(f"thought ::= [^\\n]{{1,{max_thought_chars}}}")
    if first_call:
        rules.append(f'firstcall ::= name " = " {_alternatives([f"{n}(" for n in first_call])} rest "\\n"')
    if require_final_answer:
        rules.append(f"answer ::= {_literal('final_answer(')} rest {_literal(chr(10))}")
        rules.append(f"printline ::= {_literal('print(')} rest {_literal(chr(10))}")
        rules.append(_NOT_PRINT)
    return "\n".join(rules)
