"""Runs inside Pyodide, before the worker: the same stdlib-only worker as the local executor.

Not imported on the host: `host.mjs` receives this file's text in its boot frame and runs it. It
adapts three things to WebAssembly, without touching the worker's files:
- the JavaScript bridges (`js`, `pyodide`, ...) join the worker's dangerous modules, so no grant of
  `"*"` hands them out (they lead out of WebAssembly into Node);
- asynchronous tools are awaited one at a time: Pyodide cannot poll the protocol pipe from an event
  loop, so an awaited tool call blocks on the pipe like a synchronous one (the host still runs it);
- event loops (top-level `await`, `asyncio.run`) are the standard selector loop without a self-pipe
  and without file descriptors, not Pyodide's browser loop, which needs JavaScript event loop turns
  that never come while the worker blocks on its pipe.
"""

import sys
import types

ROOT = "/smol/src"
JS_BRIDGES = frozenset(
    {"js", "pyodide", "pyodide_js", "_pyodide", "_pyodide_core", "pyodide_http", "micropip", "pyodide.ffi"}
)

sys.path.insert(0, ROOT)
for _name in ("smol_core", "smol_core.executors", "smol_core.executors.local"):
    _module = types.ModuleType(_name)
    _module.__path__ = [ROOT + "/" + _name.replace(".", "/")]
    sys.modules[_name] = _module

from smol_core.executors.local import policy  # noqa: E402

policy.DANGEROUS_MODULES = policy.DANGEROUS_MODULES | JS_BRIDGES

from smol_core.executors.local import channel  # noqa: E402


async def _call_async_blocking(self, name, args, kwargs):  # type: ignore[no-untyped-def]
    return self.call_sync(name, args, kwargs)


channel.Channel.call_async = _call_async_blocking  # type: ignore[method-assign]

import asyncio  # noqa: E402
import selectors  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402


class _TimerSelector(selectors.BaseSelector):
    """Watches no file descriptor: the code's event loop only runs coroutines and timers here."""

    def register(self, fileobj, events, data=None):  # type: ignore[no-untyped-def]
        raise OSError("file descriptors cannot be watched by an event loop in the WebAssembly sandbox")

    def unregister(self, fileobj):  # type: ignore[no-untyped-def]
        raise KeyError(fileobj)

    def select(self, timeout=None):  # type: ignore[no-untyped-def]
        if timeout is None or timeout > 0:
            time.sleep(0.05 if timeout is None else timeout)
        return []

    def get_map(self):  # type: ignore[no-untyped-def]
        return {}


class _Loop(asyncio.SelectorEventLoop):
    """The standard loop without its self-pipe (a socketpair, which Emscripten emulates with bind())."""

    def __init__(self) -> None:
        super().__init__(_TimerSelector())

    def _make_self_pipe(self) -> None:
        pass

    def _close_self_pipe(self) -> None:
        pass

    def _write_to_self(self) -> None:
        pass


with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)  # the policy API is deprecated in 3.14, not gone

    class _Policy(asyncio.DefaultEventLoopPolicy):
        _loop_factory = _Loop

    asyncio.set_event_loop_policy(_Policy())
asyncio.events._set_running_loop(None)  # Pyodide marks its browser loop as always running

from smol_core.executors.local.worker import main  # noqa: E402

main([])
