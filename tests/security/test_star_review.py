"""`"*"` grants only reviewed standard-library modules (`executors/worker/star_grant.py`).

C modules that open files, devices or sockets themselves (readline, spwd, curses, syslog, libuuid
behind uuid1 ...) are out of the audit hook's sight: with `"*"` they were admitted, and only Landlock
stood in the way. Now `"*"` grants a stdlib module only from the reviewed list; everything else is
refused unless named exactly. The walk below fails on any stdlib module that is in no reviewed list,
so a new Python version's modules are reviewed before `"*"` can hand them out.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest
from layer_helpers import ALL_ON, layered
from security_helpers import CANARY, assert_host_untouched, get_executor

from smol_core.executors.base import InterpreterError
from smol_core.executors.worker.module_policy import DANGEROUS_MODULES, SAFE_PRIVATE_MODULES
from smol_core.executors.worker.star_grant import STAR_REFUSED_STDLIB_MODULES, STAR_STDLIB_MODULES
from smol_core.executors.worker.views import Authorizer

# C code that opens files, devices or sockets itself, or reads the system's user databases
SELF_OPENING = [
    ("readline", "readline.write_history_file('/tmp/smol_star_history')"),
    ("spwd", "spwd.getspall()"),
    ("pwd", "pwd.getpwall()"),
    ("grp", "grp.getgrall()"),
    ("curses", "curses.setupterm('xterm')"),
    ("_curses", "_curses.setupterm('xterm')"),
    ("syslog", "syslog.syslog('x')"),
    ("nis", "nis.maps()"),
    ("ossaudiodev", "ossaudiodev.open('w')"),
    ("uuid", "uuid.uuid1()"),
    ("_uuid", "_uuid.generate_time_safe()"),
    ("getpass", "getpass.getuser()"),
    ("cmd", "cmd.Cmd().cmdloop()"),
    ("linecache", "linecache.getlines('/etc/hostname')"),
    ("rlcompleter", "rlcompleter.Completer().complete('x', 0)"),
    ("netrc", "netrc.netrc()"),
    ("pstats", "pstats.Stats('x')"),
    ("dis", "dis.Bytecode(lambda: 1).codeobj"),
]
PRESENT = [(m, call) for m, call in SELF_OPENING if importlib.util.find_spec(m) is not None]


def _stopped(ex, host_canary, code: str) -> str:
    with pytest.raises(InterpreterError) as info:
        out = ex(code)
        pytest.fail(f"not stopped: output={out.output!r} logs={out.logs!r}")
    assert "ESCAPED" not in (info.value.logs or "") and CANARY not in str(info.value)
    assert_host_untouched(host_canary)
    assert ex("6 * 7").output == 42
    return str(info.value)


@pytest.mark.parametrize(("module", "call"), PRESENT, ids=[m for m, _ in PRESENT])
def test_star_does_not_grant_modules_whose_c_code_opens_files(executors, host_canary, module, call):
    message = _stopped(
        get_executor(executors, ["*"]), host_canary, f"import {module}\n{call}\nprint('ESCAPED')"
    )
    assert "not allowed" in message and "name it exactly" in message


def test_star_still_grants_reviewed_modules(executors, host_canary):
    ex = get_executor(executors, ["*"])
    code = (
        "import json, re, math, statistics, datetime, collections, csv, xml.etree.ElementTree as ET\n"
        "import hashlib, zoneinfo, textwrap, dataclasses, typing, decimal, fractions, random\n"
        "(json.dumps([1]), ET.fromstring('<a>1</a>').text, hashlib.sha256(b'').hexdigest()[:4])"
    )
    assert ex(code).output == ("[1]", "1", "e3b0")


def test_a_refused_module_is_granted_when_named_exactly(host_canary):
    ex = layered(ALL_ON, ["*", "getpass", "uuid"])
    try:
        assert ex("import getpass, uuid\nlen(str(uuid.uuid4()))").output == 36
    finally:
        ex.close()


def test_star_still_grants_third_party_packages():
    auth = Authorizer(["*"], {})
    assert auth.refusal("some_third_party_package") is None
    assert auth.refusal("some_third_party_package.sub") is None


# --- the review is complete ------------------------------------------------------------------------


def test_every_stdlib_module_is_reviewed():
    """Each module of this Python's standard library is in a reviewed list, or is refused by a rule
    of its own (dangerous; private and not an accelerator). Add a new one to `star_grant.py`."""
    unreviewed = sorted(
        name
        for name in sys.stdlib_module_names
        if name not in STAR_STDLIB_MODULES
        and name not in STAR_REFUSED_STDLIB_MODULES
        and name not in DANGEROUS_MODULES
        and not name.startswith("_")
    )
    assert unreviewed == [], f"review these for '*' (star_grant.py): {unreviewed}"


def test_star_grants_exactly_the_reviewed_stdlib_modules():
    auth = Authorizer(["*"], {})
    granted = {name for name in sys.stdlib_module_names if auth.refusal(name) is None}
    assert granted <= STAR_STDLIB_MODULES, sorted(granted - STAR_STDLIB_MODULES)
    reviewed_present = {n for n in STAR_STDLIB_MODULES if n in sys.stdlib_module_names}
    assert reviewed_present - {"asyncio"} <= granted  # asyncio: through its special view only


def test_the_lists_do_not_contradict_each_other():
    assert not STAR_STDLIB_MODULES & set(STAR_REFUSED_STDLIB_MODULES)
    assert not STAR_STDLIB_MODULES & DANGEROUS_MODULES
    private_reviewed = STAR_STDLIB_MODULES | set(STAR_REFUSED_STDLIB_MODULES)
    assert SAFE_PRIVATE_MODULES <= private_reviewed, sorted(SAFE_PRIVATE_MODULES - private_reviewed)


@pytest.mark.parametrize(
    "package",
    [
        "psutil",
        "pexpect",
        "docker",
        "dotenv",
        "tokenizers",
        "torch",
        "dill",
        "smol_executor_docker",
        "smol_tool_web",
    ],
)
def test_star_does_not_grant_known_dangerous_packages(package):
    auth = Authorizer(["*"], {})
    assert "does not grant" in (auth.refusal(package) or "")
    assert "does not grant" in (auth.refusal(f"{package}.sub") or "")
    assert Authorizer(["*", package], {}).refusal(package) is None  # named exactly: granted


@pytest.mark.skipif(importlib.util.find_spec("psutil") is None, reason="psutil is not installed")
def test_star_refuses_psutil_in_the_sandbox(executors, host_canary):
    code = "import psutil\npsutil.Process(psutil.Process().ppid()).nice(19)\nprint('ESCAPED')"
    assert "does not grant" in _stopped(get_executor(executors, ["*"]), host_canary, code)
