"""A private asyncio event loop on a daemon thread, so that synchronous smol code can use async MCP.

The MCP SDK is async (anyio), smol's agents are synchronous, and an MCP session must stay open
across many tool calls and agent runs: one loop thread per `MCPClient` holds the sessions, and
tool calls hop onto it with `run_coroutine_threadsafe`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")
logger = logging.getLogger("smol_tool_mcp")


def _quiet_handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """Log stray loop errors in one line, without formatting a traceback on this thread.

    On CPython 3.11, formatting a traceback runs `ast.parse` (for the ^^^ markers), and `ast`
    conversions on two threads at once can corrupt the interpreter-wide AST recursion counter, after
    which every `ast.parse` in the process fails ("AST constructor recursion depth mismatch"); the
    agent's own thread parses code all the time.
    """
    error = context.get("exception")
    detail = f": {type(error).__name__}: {error}" if error is not None else ""
    logger.debug("smol-mcp event loop: %s%s", context.get("message", "error"), detail)


class LoopThread:
    def __init__(self, name: str = "smol-mcp") -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.set_exception_handler(_quiet_handler)
        self.loop.run_forever()

    def submit(self, coroutine: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float | None) -> T:
        """Run `coroutine` on the loop and wait for it; raises TimeoutError after `timeout` seconds."""
        if threading.current_thread() is self._thread:
            raise RuntimeError("LoopThread.run() called from its own loop: this would deadlock.")
        future = self.submit(coroutine)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError from None

    def stop(self) -> None:
        if self.loop.is_closed():
            return
        self.loop.call_soon_threadsafe(self.loop.stop)
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=5)
        if not self._thread.is_alive():
            self.loop.close()
