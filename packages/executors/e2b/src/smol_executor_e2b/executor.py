"""`E2BExecutor`: the code runs in an E2B cloud sandbox, under the same worker as the local executor.

Why this shape: the E2B sandbox (a microVM in E2B's cloud) is the outer wall; inside it the smol
worker applies its own guards, so the model's code meets the same language layer, error messages and
security corpus as locally. The worker's sources travel over stdin at start-up (executors/host/bundle.py),
so any template with a `python3` works and the worker is always the host's version. The host side
is the shared `WorkerExecutor` driver: tools run here (a tool call is a message), nothing from the
sandbox is unpickled here, and the API key never enters the sandbox (the worker gets a clean
environment; the SDK keeps the key for E2B's control plane).

Lifecycle: one sandbox per executor, created on construction and killed on `close()` (E2B also kills
it after `sandbox_timeout` seconds without it). A time-out kills the worker command, not the sandbox;
the next call starts a fresh worker in the same sandbox. A sandbox that has gone away is replaced.
"""

from __future__ import annotations

import contextlib
import os
import time
from typing import Any

from smol_core.plugin_api import (
    CodeOutput,
    ExecutorUnavailableError,
    WorkerExecutor,
    WorkerLink,
    bundle_frame,
    install_hint,
    loader_command,
)
from smol_executor_e2b.link import E2BLink, relay_command

SCRATCH = "/tmp/smol-scratch"
WORKER_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "HOME": "/tmp",
    "PYTHONIOENCODING": "utf-8",
    "PYTHONHASHSEED": "0",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MPLBACKEND": "Agg",
}
KEYS_URL = "https://e2b.dev/dashboard?tab=keys"
DEFAULT_SANDBOX_TIMEOUT = 600  # seconds; the SDK's own default (300) would expire a thinking agent's state


class E2BExecutor(WorkerExecutor):
    """Runs code in an E2B sandbox through the `e2b-code-interpreter` SDK; state persists between calls.

    additional_authorized_imports: as for the local executor; the packages must exist in the template.
    logger: smolagents' second argument (an `AgentLogger`, or anything with `log(text)`): told when
        the executor starts and when its sandbox is shut down. `additional_imports=` is smolagents' name for the authorized imports.
    api_key: E2B API key (default: the E2B_API_KEY environment variable).
    template: sandbox template (default: the SDK's code-interpreter template, which has numpy/pandas).
    timeout_seconds: wall-clock limit of one action; past it the worker command is killed.
    sandbox_timeout: seconds E2B keeps the sandbox alive without a `close()` (600 by default); actions
        push the deadline back, so only an idle executor's sandbox expires (it is then replaced, state
        lost). `timeout=` is smolagents' (and the SDK's) name for it.
    memory_limit_mb: the worker's address-space limit inside the sandbox.
    python: the interpreter inside the sandbox.
    sandbox_kwargs: passed to `Sandbox.create` (metadata, network, domain, request_timeout...).

    `Sandbox.create` receives what smolagents gives it: the key and the keywords passed here, as they
    are, with nothing added but the lifetime (which the executor must know to push it back).
    """

    def __init__(
        self,
        additional_authorized_imports: list[str] | None = None,
        logger: Any = None,
        *,
        additional_imports: list[str] | None = None,
        max_print_outputs_length: int | None = None,
        api_key: str | None = None,
        template: str | None = None,
        timeout_seconds: float | None = 30,
        sandbox_timeout: int | None = None,
        timeout: int | None = None,
        memory_limit_mb: int | None = 2048,
        python: str = "python3",
        **sandbox_kwargs: Any,
    ) -> None:
        authorized = [*(additional_authorized_imports or []), *(additional_imports or [])]
        super().__init__(authorized, max_print_outputs_length, timeout_seconds)
        self.logger = logger
        if logger is not None:
            logger.log("Initializing executor, hold on...")
        self.memory_limit_mb = memory_limit_mb
        self.python = python
        self._api_key = api_key or os.environ.get("E2B_API_KEY")
        self.sandbox_timeout = _lifetime(sandbox_timeout, timeout)
        template_kwargs = {"template": template} if template is not None else {}
        self._create_kwargs: dict[str, Any] = {
            **template_kwargs,
            "timeout": self.sandbox_timeout,
            **sandbox_kwargs,
        }
        self.sandbox: Any = None
        self.sandbox = self._create_sandbox()
        self._extended_at = time.monotonic()
        self._start()

    # --- the sandbox -----------------------------------------------------------------------
    def _create_sandbox(self) -> Any:
        try:
            from e2b_code_interpreter import Sandbox  # type: ignore[import-untyped,unused-ignore]
        except ImportError as exc:
            raise ExecutorUnavailableError(
                f"the E2B SDK is not installed ({exc}): {install_hint('e2b-code-interpreter')}"
            ) from None
        debug = os.environ.get("E2B_DEBUG", "").lower() == "true"
        if not self._api_key and not debug:
            raise ExecutorUnavailableError(
                f"E2B needs an API key: set E2B_API_KEY or pass api_key=... (create one at {KEYS_URL})"
            )
        try:
            return Sandbox.create(api_key=self._api_key, **self._create_kwargs)
        except Exception as exc:
            raise _unavailable(exc) from None

    def open_link(self) -> WorkerLink:
        command = relay_command(loader_command(self.python), WORKER_ENV, self.python)
        try:
            return E2BLink(self.sandbox, command, bundle_frame())
        except EOFError as exc:
            raise ExecutorUnavailableError(f"the worker did not start in the E2B sandbox: {exc}") from None
        except Exception as exc:
            if self._sandbox_alive():
                raise _unavailable(exc) from None
        self.sandbox = self._create_sandbox()  # it expired or was killed: start over in a new one
        self._extended_at = time.monotonic()
        return E2BLink(self.sandbox, command, bundle_frame())

    def __call__(self, code_action: str) -> CodeOutput:
        self._keep_alive()
        return super().__call__(code_action)

    def _keep_alive(self) -> None:
        """Push E2B's kill deadline back once half of it has gone by, so a long agent run keeps its state."""
        if self.sandbox is None or time.monotonic() - self._extended_at < self.sandbox_timeout / 2:
            return
        with contextlib.suppress(Exception):  # a sandbox already gone is replaced when the worker starts
            self.sandbox.set_timeout(self.sandbox_timeout)
            self._extended_at = time.monotonic()

    def _sandbox_alive(self) -> bool:
        try:
            return bool(self.sandbox.is_running())
        except Exception:
            return False

    def worker_config(self) -> dict[str, Any]:
        return {
            **self.common_worker_config(),
            "memory_limit_mb": self.memory_limit_mb,
            "scratch": SCRATCH,
            "os_sandbox": True,
            "expected_env": list(WORKER_ENV),
        }

    def describe_protections(self, reported: list[tuple[str, bool, str]]) -> list[tuple[str, bool, str]]:
        sandbox_id = getattr(self.sandbox, "sandbox_id", "?")
        return [
            *reported,
            ("e2b sandbox", True, f"E2B cloud sandbox {sandbox_id}; tools and secrets stay on the host"),
        ]

    def close(self) -> None:
        with self._lock:
            super().close()
            sandbox, self.sandbox = self.sandbox, None
        if sandbox is not None:
            self._log("Shutting down sandbox...")
            with contextlib.suppress(Exception):
                sandbox.kill()
            self._log("Sandbox cleanup completed")

    def _log(self, text: str) -> None:
        if self.logger is not None:
            with contextlib.suppress(Exception):
                self.logger.log(text)


def _lifetime(sandbox_timeout: int | None, timeout: int | None) -> int:
    """The sandbox's lifetime from either name; both, differing, is a mistake worth a clear error."""
    if sandbox_timeout is not None and timeout is not None and sandbox_timeout != timeout:
        raise ValueError(
            f"E2BExecutor got sandbox_timeout={sandbox_timeout} and timeout={timeout}, two names for the "
            "sandbox's lifetime: pass one of them."
        )
    chosen = sandbox_timeout if sandbox_timeout is not None else timeout
    return chosen if chosen is not None else DEFAULT_SANDBOX_TIMEOUT


def _unavailable(exc: Exception) -> ExecutorUnavailableError:
    name = type(exc).__name__
    if "Authentication" in name or "401" in str(exc):
        return ExecutorUnavailableError(f"E2B refused the API key ({exc}); check E2B_API_KEY ({KEYS_URL})")
    return ExecutorUnavailableError(f"E2B could not be reached or refused the sandbox ({name}: {exc})")
