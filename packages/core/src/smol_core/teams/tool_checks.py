"""The definitions of the tools every agent of a team makes, checked once in the fork server.

Why: each agent makes its message tools and its final-answer tool, and each tool's definition is
checked as it is made (`tools/checks.py`: `inspect.signature` and `get_type_hints` of `forward`,
about 1 ms per agent for the three). The check is remembered per process, so the fork server does
it once, on instances made without their `__init__` (whose definitions are their classes'), and
every agent forked from it finds the answer. A tool whose `__init__` changes its inputs is checked
again, as any tool is.
"""

from __future__ import annotations

from smol_core.tools.checks import validate_tool_definition

__all__ = ["warm_tool_checks"]


def warm_tool_checks() -> None:
    """Check the team's message tools and the final-answer tool now, in this process."""
    from smol_core.teams.tools import ReceiveMessagesTool, SendMessageTool
    from smol_core.tools.base_tools import FinalAnswerTool

    for tool_class in (SendMessageTool, ReceiveMessagesTool, FinalAnswerTool):
        try:
            validate_tool_definition(tool_class.__new__(tool_class))
        except Exception:
            continue
