"""Runs inside Pyodide, before the worker: the same stdlib-only worker as the local executor.

Not imported on the host: `host.mjs` receives this file's text in its boot frame and runs it. It
adapts three things to WebAssembly, without touching the worker's files:
- the standard library is unpacked from Pyodide's zip into the in-memory file system (see
  `_unpack_stdlib`);
- the JavaScript bridges (`js`, `pyodide`, ...) join the worker's dangerous modules, so no grant of
  `"*"` hands them out (they lead out of WebAssembly into Node);
- event loops (top-level `await`, `asyncio.run`) are the standard selector loop with a selector that
  waits on the protocol pipe by reading it (WebAssembly cannot poll) and without a self-pipe (a
  socketpair, which Emscripten emulates with bind()); not Pyodide's browser loop, which needs
  JavaScript event loop turns that never come while the worker blocks on its pipe.
"""

import sys

ROOT = "/smol/src"
JS_BRIDGES = frozenset(
    {"js", "pyodide", "pyodide_js", "_pyodide", "_pyodide_core", "pyodide_http", "micropip", "pyodide.ffi"}
)


def _unpack_stdlib() -> None:
    """Pyodide imports the standard library from a zip, so its modules compile from source at import
    time under a filename that is no file; the worker's audit hook would treat those compiles as code
    made at run time and refuse many of them (`import statistics` reads private names). Unpacked into
    the in-memory file system, they are ordinary module files of the installation, as on CPython."""
    import importlib
    import zipfile

    for entry in [p for p in sys.path if p.endswith(".zip")]:
        target = f"/lib/python{sys.version_info.major}.{sys.version_info.minor}"
        with zipfile.ZipFile(entry) as archive:
            archive.extractall(target)
        sys.path[sys.path.index(entry)] = target
    sys.path_importer_cache.clear()
    importlib.invalidate_caches()


_unpack_stdlib()
sys.path.insert(0, ROOT)  # the worker's files, written by host.mjs; its packages are empty

from smol_core.executors.worker import module_policy  # noqa: E402

module_policy.DANGEROUS_MODULES = module_policy.DANGEROUS_MODULES | JS_BRIDGES

import asyncio  # noqa: E402
import selectors  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402


class _PipeSelector(selectors.BaseSelector):
    """Watches the protocol pipe the only way WebAssembly allows: by reading it, blocking.

    The worker's async tool proxies register the pipe with `add_reader` while replies are owed. When
    the loop has nothing ready to run, this selector reports the pipe readable, and the worker's
    reader callback then blocks in read() until the host's next reply (always owed, so it comes).
    Several async tool calls are thus in flight at once, as with the local executor; timers wait
    while the loop waits for a reply. With nothing registered it just sleeps until the next timer.
    """

    def __init__(self) -> None:
        self._keys: dict[int, selectors.SelectorKey] = {}

    def register(self, fileobj, events, data=None):  # type: ignore[no-untyped-def]
        if events & ~selectors.EVENT_READ:
            raise OSError("only reading can be watched by an event loop in the WebAssembly sandbox")
        fd = fileobj if isinstance(fileobj, int) else fileobj.fileno()
        key = selectors.SelectorKey(fileobj, fd, events, data)
        self._keys[fd] = key
        return key

    def unregister(self, fileobj):  # type: ignore[no-untyped-def]
        return self._keys.pop(fileobj if isinstance(fileobj, int) else fileobj.fileno())

    def select(self, timeout=None):  # type: ignore[no-untyped-def]
        if timeout is not None and timeout <= 0:
            return []
        if self._keys:
            return [(key, selectors.EVENT_READ) for key in self._keys.values()]
        time.sleep(0.05 if timeout is None else timeout)
        return []

    def get_map(self):  # type: ignore[no-untyped-def]
        return dict(self._keys)

    def close(self) -> None:
        self._keys.clear()


class _Loop(asyncio.SelectorEventLoop):
    """The standard loop without its self-pipe (a socketpair, which Emscripten emulates with bind())."""

    def __init__(self) -> None:
        super().__init__(_PipeSelector())

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

from smol_core.executors.worker.main import main  # noqa: E402

main([])
