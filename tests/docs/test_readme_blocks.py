"""Every fenced Python and shell block of README.md and of each package's README, run as written.

A new user copies these first, so each one runs here the way a user would run it: as a script or a
shell session in a fresh folder, with this checkout installed, offline. Blocks that need a cloud
model get the local OpenAI-compatible stand-in (`tests/models/openai_stub.py`) through the standard
`OPENAI_BASE_URL` / `OPENAI_API_KEY` variables, answering with the action the directive writes; the
blocks that cannot run here are skipped with the reason written beside them in the README (see
`blocks.py` for the directives), and `pytest -rs` lists those reasons.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from blocks import PYTHON, SHELL, Block, all_blocks, blocks_of
from openai_stub import completion, start_stub
from workspace import Workspace

BLOCKS = [block for block in all_blocks() if block.language in PYTHON | SHELL]


@pytest.mark.slow
@pytest.mark.parametrize("block", BLOCKS, ids=[block.id for block in BLOCKS])
def test_block_runs_as_written(block: Block, workspace_for: Callable[[Path], Workspace]) -> None:
    directive = block.directive
    if directive.skip:
        pytest.skip(f"{block.id}: {directive.skip}")
    if directive.file:
        pytest.skip(f"{block.id}: a file of the example ({directive.file}), written for the blocks after it")
    if block.language in SHELL and not directive.run:
        pytest.fail(f'{block.id}: a shell block must be marked `run` or `skip="reason"`')
    workspace = workspace_for(block.document)
    workspace.prepare(blocks_of(block.document))
    extra_env: dict[str, str] = {}
    stub = None
    if directive.openai_stub is not None:
        reply = completion(f"Thought: the stand-in answers.\n<code>\n{directive.openai_stub}\n</code>")
        stub = start_stub(*[reply] * 50)
        # the variables the README tells a user to set; nothing here reaches a real endpoint
        extra_env = {
            "OPENAI_BASE_URL": stub.url,
            "OPENAI_API_KEY": "sk-docs-test",
            "AZURE_OPENAI_API_KEY": "sk-docs-test",
        }
    try:
        result = workspace.run(block, extra_env)
    finally:
        if stub is not None:
            stub.close()
    report = f"{block.id} exited {result.returncode}\n--- stdout\n{result.stdout[-3000:]}\n--- stderr\n{result.stderr[-3000:]}"
    assert result.returncode == 0, report
    for expected in directive.expect:
        assert expected in result.stdout, f"{expected!r} not printed\n{report}"


def test_every_block_has_a_known_language() -> None:
    """A block in a language the tests do not know would silently go untested."""
    known = PYTHON | SHELL | {"toml", "text", "yaml", "json"}
    unknown = [block.id for block in all_blocks() if block.language not in known]
    assert unknown == []


def test_the_first_example_checks_its_answer() -> None:
    """The README's first Python example is the quickstart: it must be run and its answer checked."""
    first = next(block for block in BLOCKS if block.document.name == "README.md" and block.language in PYTHON)
    assert first.directive.skip is None and "391" in first.directive.expect
