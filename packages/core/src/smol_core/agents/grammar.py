"""A GBNF grammar for the code-action format, for models that decode under a grammar (llama.cpp).

With it every reply is `Thought: <one line>` then a code block, and nothing after it: the model can
neither skip the code, nor ramble, nor invent its own observation after the block — the three
failures that make the smallest models useless as agents. The format stays the plain text of the
prompt's examples, which small models copy far better than code escaped inside a JSON string.
"""

from __future__ import annotations


def _literal(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _char_class(char: str) -> str:
    return "\\" + char if char in "]\\^-" else char


def code_action_grammar(
    opening: str = "<code>",
    closing: str = "</code>",
    thought_prefix: str = "Thought: ",
    max_thought_chars: int = 300,
    require_final_answer: bool = False,
    max_code_lines: int = 40,
) -> str:
    """`Thought: <line>\\n<opening>\\n<python lines>\\n<closing>`. A code line may not start with the
    closing tag's first character (no Python line starts with `<` or a backtick: a small model that
    writes a tag or a Markdown fence there is about to invent an output), nor be empty, and a block has at
    most `max_code_lines` lines: a small model that starts repeating a line runs into the cap instead
    of into the token limit.

    `require_final_answer=True` makes the block end with a top-level `final_answer(...)` line: for an
    agent with no tools to observe, every value the code can print it can also pass straight to
    `final_answer`, and a small model that prints a result rarely comes back to answer it. (As the last
    line, the grammar stays unambiguous after one line of look-ahead, which keeps sampling fast.)
    """
    if not closing:
        raise ValueError("The closing code tag must not be empty.")
    first = closing[0]
    body = f"line{{0,{max_code_lines - 1}}} answer" if require_final_answer else f"line{{1,{max_code_lines}}}"
    rules = [
        f"root ::= {_literal(thought_prefix)} thought {_literal(chr(10) + opening + chr(10))} {body} {_literal(closing)}",
        f"thought ::= [^\\n]{{1,{max_thought_chars}}}",
        f"line ::= [^{_char_class(first)}`\\n] [^\\n]* " + _literal("\n"),
    ]
    if require_final_answer:
        rules.append(f"answer ::= {_literal('final_answer(')} [^\\n]* {_literal(chr(10))}")
    return "\n".join(rules)
