"""What `"*"` grants: the public standard library and installed packages, never CPython's private
modules that run code outside the guards, and never a package's private submodule by name."""

from __future__ import annotations

import importlib.util

import pytest
from layer_helpers import ALL_ON, LAYER_CHOICES, layered
from security_helpers import CANARY, WRITE_TARGET, assert_host_untouched, get_executor

from smol_core.executors.base import InterpreterError

PRIVATE_MODULES = [
    "_xxsubinterpreters",
    "_xxinterpchannels",
    "_interpreters",
    "_testcapi",
    "_testinternalcapi",
    "_testbuffer",
    "_testmultiphase",
    "_imp",
    "_frozen_importlib",
    "_frozen_importlib_external",
    "_posixsubprocess",
    "_posixshmem",
    "_ctypes",
    "_thread",
    "_signal",
    "_tracemalloc",
    "_io",
    "_pyio",
    "_socket",
    "_winapi",
    "_asyncio",
]
PRESENT = [m for m in PRIVATE_MODULES if importlib.util.find_spec(m) is not None]

PRIVATE_SUBMODULES = [
    "email._parseaddr",
    "email._policybase",
    "zoneinfo._common",
    "multiprocessing.shared_memory",
]
SAFE_ACCELERATORS = ["_heapq", "_bisect", "_json", "_functools", "_collections", "_datetime", "_random"]


def _stopped(ex, host_canary, code: str) -> str:
    with pytest.raises(InterpreterError) as info:
        out = ex(code)
        pytest.fail(f"not stopped: output={out.output!r} logs={out.logs!r}")
    assert "ESCAPED" not in (info.value.logs or "") and CANARY not in str(info.value)
    assert_host_untouched(host_canary)
    assert ex("6 * 7").output == 42
    return str(info.value)


@pytest.mark.parametrize("module", PRESENT)
def test_star_does_not_grant_private_modules(executors, host_canary, module):
    message = _stopped(get_executor(executors, ["*"]), host_canary, f"import {module}")
    assert "not allowed" in message


@pytest.mark.parametrize("module", PRIVATE_SUBMODULES)
def test_star_does_not_grant_private_submodules(executors, host_canary, module):
    _stopped(get_executor(executors, ["*"]), host_canary, f"import {module}")


def test_package_pattern_does_not_grant_its_private_submodules(executors, host_canary):
    _stopped(get_executor(executors, ["email.*"]), host_canary, "import email._parseaddr")


def test_star_still_grants_public_modules_and_safe_accelerators(executors, host_canary):
    ex = get_executor(executors, ["*"])
    assert ex("import email.utils\nemail.utils.parseaddr('A <a@b.c>')").output == ("A", "a@b.c")
    present = [m for m in SAFE_ACCELERATORS if importlib.util.find_spec(m) is not None]
    code = f"import {', '.join(present)}\n_bisect.bisect_left([1, 2, 3], 2)"
    assert ex(code).output == 1


@pytest.mark.skipif(importlib.util.find_spec("_xxsubinterpreters") is None, reason="no subinterpreters")
@pytest.mark.parametrize("choice", LAYER_CHOICES)
def test_no_subinterpreter_even_when_named(host_canary, choice):
    """A subinterpreter has no audit hook and fresh builtins: creating one is refused at the audit layer."""
    ex = layered(choice, ["_xxsubinterpreters"])
    try:
        code = (
            "import _xxsubinterpreters as interpreters\n"
            "i = interpreters.create()\n"
            f"interpreters.run_string(i, \"open({str(WRITE_TARGET)!r}, 'w').write('x')\")\n"
            "print('ESCAPED')"
        )
        _stopped(ex, host_canary, code)
    finally:
        ex.close()


@pytest.mark.parametrize("choice", [ALL_ON])
def test_named_private_module_still_works_when_harmless(host_canary, choice):
    """Naming a private module exactly is the user's explicit choice (the OS layer still holds)."""
    ex = layered(choice, ["_heapq", "_string"])
    try:
        assert ex("import _string\nlist(_string.formatter_parser('a{0}'))[0][0]").output == "a"
    finally:
        ex.close()
