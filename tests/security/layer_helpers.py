"""Executors with chosen OS layers switched off, to show that the other layers hold on their own.

Why a subclass and not a constructor argument: switching protections off is for tests only; the
worker reads `os_layers_off` from its config, which only the host's code writes.
"""

from __future__ import annotations

from typing import Any

from smol_core.executors.local import LocalPythonExecutor
from smol_core.executors.worker.sandbox import LAYERS

ALL_ON = "all-on"
NO_OS_LAYER = "no-os-sandbox"
# every layer on, each OS layer off in turn, then no OS layer at all (language guards and audit hook)
LAYER_CHOICES = [ALL_ON, *LAYERS, NO_OS_LAYER]


class LayeredExecutor(LocalPythonExecutor):
    def __init__(self, *args: Any, layers_off: tuple[str, ...] = (), **kwargs: Any) -> None:
        self.layers_off = tuple(layers_off)
        super().__init__(*args, **kwargs)

    def worker_config(self) -> dict[str, Any]:
        return {**super().worker_config(), "os_layers_off": list(self.layers_off)}


def layered(choice: str, authorized: list[str], **kwargs: Any) -> LayeredExecutor:
    off = () if choice in (ALL_ON, NO_OS_LAYER) else (choice,)
    if choice == NO_OS_LAYER:
        kwargs["os_sandbox"] = False
    kwargs.setdefault("timeout_seconds", 10)
    kwargs.setdefault("memory_limit_mb", 1024)
    return LayeredExecutor(authorized, layers_off=off, **kwargs)


def active(executor: LocalPythonExecutor) -> dict[str, bool]:
    executor.wait_until_ready()
    return {name: on for name, on, _ in executor.protections}
