"""The fenced code blocks of the READMEs, each with the `docs-test` directive written just before it.

Sybil's Markdown lexers find the blocks; a directive is an HTML comment on the line(s) right above a
block, invisible on GitHub and PyPI:

    <!-- docs-test: expect="391" -->
    <!-- docs-test: openai-stub="final_answer(8)" expect="8" -->
    <!-- docs-test: skip="needs an AWS account: tests/models/bedrock runs it against a stand-in" -->
    <!-- docs-test: file=smol-greeter/pyproject.toml -->
    <!-- docs-test: run expect="Hello, Ada!" -->

A Python block runs unless it is skipped; a shell block runs only when marked `run`, because most
install things or need a service, and every other shell block must say why it is not run (an
unmarked shell block fails its test). `file=` blocks are not run: they are written into the
document's workspace for the blocks after them.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

from sybil import Document
from sybil.parsers.markdown.lexers import FencedCodeBlockLexer

ROOT = Path(__file__).resolve().parents[2]
DIRECTIVE = re.compile(r"<!--\s*docs-test:(?P<body>(?:(?!-->).)*)-->\s*\Z", re.DOTALL)
PYTHON = {"python", "py"}
SHELL = {"bash", "sh", "shell", "console"}


@dataclass(frozen=True)
class Directive:
    """What the comment above a block asks for."""

    run: bool = False
    skip: str | None = None
    file: str | None = None
    expect: tuple[str, ...] = ()
    openai_stub: str | None = None
    timeout: float = 240.0


@dataclass(frozen=True)
class Block:
    """One fenced block of a README, where it is, and its directive."""

    document: Path
    line: int
    language: str
    source: str
    directive: Directive = field(default_factory=Directive)

    @property
    def id(self) -> str:
        return f"{self.document.relative_to(ROOT)}:{self.line}"


def parse_directive(text: str) -> Directive | None:
    """The directive in the HTML comment that ends `text` (the document up to a block), if any."""
    match = DIRECTIVE.search(text)
    if match is None:
        return None
    options: dict[str, object] = {}
    expect: list[str] = []
    for token in shlex.split(match.group("body")):
        key, _, value = token.partition("=")
        if key == "run":
            options["run"] = True
        elif key == "skip":
            options["skip"] = value or "no reason given"
        elif key == "file":
            options["file"] = value
        elif key == "expect":
            expect.append(value)
        elif key == "openai-stub":
            options["openai_stub"] = value
        elif key == "timeout":
            options["timeout"] = float(value)
        else:
            raise ValueError(f"unknown docs-test option {key!r} in {match.group(0)!r}")
    return Directive(expect=tuple(expect), **options)  # type: ignore[arg-type]


def blocks_of(path: Path) -> list[Block]:
    """Every fenced block of one Markdown file that names its language."""
    document = Document(path.read_text(encoding="utf-8"), str(path))
    found: list[Block] = []
    for region in FencedCodeBlockLexer(language=r"[\w-]+")(document):
        line = document.text.count("\n", 0, region.start) + 1
        directive = parse_directive(document.text[: region.start]) or Directive()
        language = str(region.lexemes["language"]).lower()
        found.append(Block(path, line, language, str(region.lexemes["source"]), directive))
    return found


def readmes() -> list[Path]:
    """README.md, every package's README and the documentation site's pages, in a stable order
    (the site's pages that embed a README through a snippet hold no blocks of their own)."""
    return [
        ROOT / "README.md",
        *sorted(ROOT.glob("packages/**/README.md")),
        *sorted(ROOT.glob("docs/**/*.md")),
    ]


def all_blocks() -> list[Block]:
    return [block for path in readmes() for block in blocks_of(path)]
