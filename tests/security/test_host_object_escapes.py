"""Attacks on the objects a user hands to a run (`additional_args`): they stay on the host, and the code
works on them through handles (executors/host/held.py). A handle must lead nowhere the sandbox
refuses: no private state (keys), no frames or globals, no class graph, no modules, no system
functions, no other host object. Each attack below runs in a real worker against real host objects;
the hostile-frame cases call the host's guard and decoder with what a worker that writes its own
frames could send.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from security_helpers import CANARY, WRITE_TARGET, assert_host_untouched

from smol_core.executors.base import InterpreterError
from smol_core.executors.host.frames import ProtocolLimits
from smol_core.executors.host.held import HeldObjects, HostObjectRefusedError, serve
from smol_core.executors.host.untrusted import decode_untrusted
from smol_core.executors.local import LocalPythonExecutor
from smol_core.executors.worker.protocol import ProtocolError


class Client:
    """A client as a user would pass one: a key in private state, a module and system functions
    kept as attributes, and methods that reach `os` in their globals."""

    def __init__(self) -> None:
        self._api_key = CANARY
        self.os = os
        self.runner = os.system
        self.popen = subprocess.Popen
        self.spawn = subprocess.run
        self.name = "client"

    def fetch(self, what: str) -> str:
        return f"fetched {what} (cwd known: {bool(os.getcwd())})"

    def attribute(self, name: str) -> object:
        """A careless generic getter: the code may ask it for anything, dunders included."""
        return getattr(self, name)

    def module(self) -> object:
        return os

    def globals_of_init(self) -> object:
        return self.__init__.__globals__  # type: ignore[misc]

    def environment(self) -> object:
        return os.environ.get("SMOL_TEST_API_KEY", "")[:0] or self  # an object, not the secret


@dataclass
class Record:
    title: str


@pytest.fixture(scope="module")
def executor(host_canary) -> Iterator[LocalPythonExecutor]:
    ex = LocalPythonExecutor([], timeout_seconds=10, memory_limit_mb=1024)
    ex.send_variables({"client": Client(), "record": Record("r")})
    yield ex
    ex.close()


ATTACKS = {
    "private_key": "client._api_key",
    "private_key_getattr": "getattr(client, '_api' + '_key')",
    "dict_of_proxy": "vars(client)",
    "dunder_dict_getattr": "getattr(client, '__di' + 'ct__')",
    "class_init_globals": "type(client).__init__.__globals__",
    "class_walk_subclasses": "client.__class__.__base__.__subclasses__()",
    "method_globals": "client.fetch.__globals__",
    "method_func_getattr": "getattr(client.fetch, '__fu' + 'nc__')",
    "method_self": "client.fetch.__self__",
    "module_attribute": "client.os.system('touch /tmp/smol_pwned_marker')",
    "system_function_attribute": "client.runner('touch /tmp/smol_pwned_marker')",
    "process_class_attribute": "client.popen(['touch', '/tmp/smol_pwned_marker'])",
    "process_function_attribute": "client.spawn(['touch', '/tmp/smol_pwned_marker'])",
    "method_returning_a_module": "client.module().system('touch /tmp/smol_pwned_marker')",
    "careless_getter_dunder_then_globals": "client.attribute('__init__').__globals__",
    "careless_getter_init_globals_getattr": "getattr(client.attribute('__init__'), '__glob' + 'als__')",
    "careless_getter_dict": "client.attribute('__dict__')['_api_key']",
    "careless_getter_module": "client.attribute('os').environ['SMOL_TEST_API_KEY']",
    "format_traversal_class": "'{0.__class__.__init__.__globals__}'.format(client)",
    "format_traversal_private": "'{0._api_key}'.format(client)",
    "format_map_private": "'{c._api_key}'.format_map({'c': client})",
    "setattr_private": "setattr(client, '_api_key', 'x')",
    "getattribute_dunder": "client.__getattribute__('_api_key')",
    "getattr_dunder_method": "client.__getattr__('_api_key')",
    "forged_handle": "type(record)(10**6, 'x').title",
    "forged_handle_zero": "type(record)(0, 'x').title",
    "careless_getter_globals_dict": "client.attribute('fetch').__globals__['os']",
    "method_returning_globals": "client.globals_of_init()['os']",
    "reduce_proxy": "client.__reduce_ex__(2)[1][0].__globals__",
}


@pytest.mark.parametrize("code", ATTACKS.values(), ids=list(ATTACKS))
def test_a_handle_leads_nowhere_the_sandbox_refuses(
    executor: LocalPythonExecutor, host_canary, code: str
) -> None:
    with pytest.raises(InterpreterError) as info:
        out = executor(code)
        pytest.fail(f"not blocked: output={out.output!r} logs={out.logs!r}")
    assert CANARY not in str(info.value)
    assert CANARY not in (info.value.logs or "")
    assert not WRITE_TARGET.exists()
    assert_host_untouched(host_canary)
    assert executor("client.name + record.title").output == "clientr"  # the worker and its handles still work


def test_public_state_and_methods_work(executor: LocalPythonExecutor) -> None:
    assert executor("client.fetch('x')").output.startswith("fetched x")
    assert "_api_key" not in executor("dir(client)").output


# --- what a worker that writes its own frames could send ----------------------------------------
@pytest.fixture
def held() -> HeldObjects:
    return HeldObjects()


@pytest.mark.parametrize(
    ("action", "name", "args"),
    [
        ("get", "_api_key", []),
        ("get", "__dict__", []),
        ("get", "__class__", []),
        ("get", "os", []),
        ("get", "runner", []),
        ("get", "popen", []),
        ("set", "_api_key", ["x"]),
        ("set", "__class__", [object]),
        ("call", "__init__", []),
        ("call", "__reduce_ex__", [2]),
        ("call", "module", []),
        ("call", "runner", ["true"]),
        ("call", "not an identifier", []),
        ("getattr", "name", []),
        ("__getitem__", "", [0]),
    ],
)
def test_the_host_guard_refuses_what_a_hostile_worker_asks(
    held: HeldObjects, action: str, name: str, args: list[object]
) -> None:
    client = Client()
    handle = held.hold(client)
    with pytest.raises(HostObjectRefusedError):
        serve(held, handle, action, name, args, {})
    assert client._api_key == CANARY and client.os is os


def test_a_method_handle_has_no_private_side(held: HeldObjects) -> None:
    """A bound method the code obtained (through a careless getter) is a handle like any other."""
    client = Client()
    kind, method = serve(held, held.hold(client), "call", "attribute", ["fetch"], {})
    assert kind == "value" and callable(method)
    for name in ("__globals__", "__func__", "__self__", "__code__"):
        with pytest.raises(HostObjectRefusedError):
            serve(held, held.hold(method), "get", name, [], {})


@pytest.mark.parametrize("handle", [0, -1, 2, 10**18, True, "1", 1.0, None])
def test_handles_the_host_never_gave_are_refused(held: HeldObjects, handle: object) -> None:
    held.hold(Client())
    with pytest.raises(HostObjectRefusedError):
        serve(held, handle, "get", "name", [], {})  # type: ignore[arg-type]
    with pytest.raises(ProtocolError):
        decode_untrusted({"__smol__": "host_object", "id": handle}, ProtocolLimits(), None, held)


def test_a_handle_decodes_only_where_the_host_holds_objects() -> None:
    """A file (a checkpoint, a cassette) or another worker is decoded without the table: no handle
    in it can become a host object."""
    with pytest.raises(ProtocolError):
        decode_untrusted({"__smol__": "host_object", "id": 1}, ProtocolLimits(), None)


def test_a_forged_handle_in_an_actions_value_is_refused(executor: LocalPythonExecutor) -> None:
    """The code cannot write frames, but a worker that does meets this decoder: a handle the host
    never gave, in an action's value, is a ProtocolError (the run then kills and replaces the worker)."""
    from smol_core.executors.host.exchange import Exchange

    exchange = Exchange.__new__(Exchange)
    exchange.ex, exchange.limits, exchange.deadline = executor, executor.protocol_limits, None
    with pytest.raises(ProtocolError):
        exchange._decode({"__smol__": "host_object", "id": 10**9})
