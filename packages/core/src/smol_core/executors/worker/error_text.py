"""What the model reads when an action fails: syntax errors, blocked code and runtime tracebacks.

Why apart: these messages are the sandbox's voice to the model (the caret under the line, "Blocked",
a traceback of the code's own frames only), and the runtime one is formatted under the audit hook,
which must be told that the compile it does to place carets runs none of the code.
"""

from __future__ import annotations

import traceback

from . import audit, guards
from .channel import ToolError
from .views import ForbiddenImportError, SandboxViolation


def _show_line(code: str, lineno: int | None, col: int | None) -> str:
    if not lineno:
        return ""
    lines = code.splitlines()
    if not 0 < lineno <= len(lines):
        return ""
    line = lines[lineno - 1]
    caret = "" if col is None else "\n    " + " " * max(0, col) + "^"
    return f"\n    {line}{caret}"


def format_syntax_error(exc: SyntaxError, code: str) -> str:
    col = (exc.offset - 1) if exc.offset else None
    where = f"line {exc.lineno}" + (f", column {exc.offset}" if exc.offset else "")
    return f"SyntaxError: {exc.msg} ({where}){_show_line(code, exc.lineno, col)}"


def format_static(exc: guards.StaticViolation, code: str) -> str:
    where = f" (line {exc.lineno}, column {(exc.col or 0) + 1})" if exc.lineno else ""
    return f"Blocked{where}: {exc}{_show_line(code, exc.lineno, exc.col)}"


def format_runtime(
    exc: BaseException, policy: audit.AuditPolicy | None = None, name_note: str | None = None
) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename.startswith("<code #")]
    head = ""
    if frames:
        # Python 3.13+ parses each shown line again to place its carets: a compile that runs none of the
        # code, so the audit hook may trust it (str(exc) below is not trusted: it may run the code's __str__).
        if policy is not None:
            policy.trusted_compile = True
        try:
            head = "Traceback (most recent call last):\n" + "".join(traceback.format_list(frames))
        finally:
            if policy is not None:
                policy.trusted_compile = False
    if isinstance(exc, SandboxViolation):
        last = f"Blocked: {exc}"
    elif isinstance(exc, ForbiddenImportError):
        last = f"ImportError: {exc}"
    elif isinstance(exc, ToolError):
        last = f"ToolError: {exc}"
    elif isinstance(exc, SystemExit):
        last = f"SystemExit: the code called exit() or raised SystemExit({exc.code!r})"
    elif name_note is not None and isinstance(exc, NameError):
        last = f"NameError: name {exc.name!r} is not defined ({name_note})"
    else:
        last = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return head + last
