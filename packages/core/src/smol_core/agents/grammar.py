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
) -> str:
    """`Thought: <line>\\n<opening>\\n<python lines>\\n<closing>`; a code line may not start with the
    first two characters of the closing tag (which end the block)."""
    if len(closing) < 2:
        raise ValueError("The closing code tag must be at least two characters long.")
    first, second = closing[0], closing[1]
    return "\n".join(
        [
            f"root ::= {_literal(thought_prefix)} thought {_literal(chr(10) + opening + chr(10))} line+ {_literal(closing)}",
            f"thought ::= [^\\n]{{1,{max_thought_chars}}}",
            f"line ::= ( [^{_char_class(first)}\\n] [^\\n]* | {_literal(first)} [^{_char_class(second)}\\n] [^\\n]* )? "
            + _literal("\n"),
        ]
    )
