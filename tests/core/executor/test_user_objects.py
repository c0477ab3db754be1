"""Values a user hands to a run (`additional_args`) that are not plain data work in the sandbox's code.

smolagents evaluates the code in the user's process, so a dataclass, an instance of the user's class,
an `AgentAudio` or a numpy array passed in `additional_args` is the object itself there: its methods
run, its attributes read, and `final_answer(obj)` returns it. These tests hold smol to the same
answers; the objects stay on the host and the code works on them through handles
(executors/host/held.py, executors/worker/host_objects.py).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pytest

from smol_core import CodeAgent
from smol_core.agent_types import AgentAudio
from smol_core.executors.base import InterpreterError
from smol_core.executors.evaluate import evaluate_python_code, evaluate_subscript
from smol_core.testing.models import ScriptedModel


@dataclass
class Invoice:
    customer: str
    amounts: list[int] = field(default_factory=list)

    def total(self) -> int:
        return sum(self.amounts)


class Ledger:
    """A user's class with state and methods, as a client or a repository would be."""

    def __init__(self, currency: str) -> None:
        self.currency = currency
        self.entries: list[int] = []

    def add(self, amount: int) -> int:
        self.entries.append(amount)
        return len(self.entries)

    def describe(self, prefix: str = "") -> str:
        return f"{prefix}{len(self.entries)} entries in {self.currency}"

    def invoice_for(self, customer: str) -> Invoice:
        return Invoice(customer, list(self.entries))

    def __len__(self) -> int:
        return len(self.entries)

    def __getitem__(self, index: int) -> int:
        return self.entries[index]


class Point(NamedTuple):
    x: int
    y: int


def run_agent(code: str, **additional_args: Any) -> Any:
    model = ScriptedModel([f"Thought: use what I was given\n<code>\n{code}\n</code>"])
    agent = CodeAgent(tools=[], model=model, max_steps=1, verbosity_level=0)
    answer = agent.run("Use the values.", additional_args=additional_args)
    errors = [str(step.error) for step in agent.memory.steps if getattr(step, "error", None)]
    assert not errors, errors
    return answer


def test_a_script_gets_smolagents_answers_from_objects_it_was_handed() -> None:
    """The issue's script: a dataclass, a class with methods, an AgentAudio and an ndarray, each
    read and called in one action; the answers are those smolagents' in-process evaluation gives."""
    invoice = Invoice("ada", [3, 4])
    ledger = Ledger("EUR")
    audio = AgentAudio(np.zeros(16000, dtype=np.float32), samplerate=16000)
    samples = np.arange(6).reshape(2, 3)
    code = (
        "ledger.add(5)\n"
        "ledger.add(7)\n"
        "final_answer({\n"
        "    'customer': invoice.customer.upper(), 'total': invoice.total(), 'first': invoice.amounts[0],\n"
        "    'described': ledger.describe(prefix='ledger: '), 'count': len(ledger), 'second': ledger[1],\n"
        "    'rate': audio.samplerate, 'seconds': len(audio.to_raw()) / audio.samplerate,\n"
        "    'peak': float(abs(audio.to_raw()).max()),\n"
        "    'sum': int(samples.sum()), 'mean_rows': samples.mean(axis=1).tolist(), 'shape': samples.shape,\n"
        "    'n_plus_one': n + 1,\n"
        "})"
    )
    answer = run_agent(code, invoice=invoice, ledger=ledger, audio=audio, samples=samples, n=41)
    assert answer == {
        "customer": "ADA",
        "total": 7,
        "first": 3,
        "described": "ledger: 2 entries in EUR",
        "count": 2,
        "second": 7,
        "rate": 16000,
        "seconds": 1.0,
        "peak": 0.0,
        "sum": 15,
        "mean_rows": [1.0, 4.0],
        "shape": (2, 3),
        "n_plus_one": 42,
    }
    assert ledger.entries == [5, 7]  # the method ran on the user's own object, as in smolagents


def test_the_object_itself_comes_back_as_the_final_answer() -> None:
    invoice = Invoice("ada", [1])
    assert run_agent("final_answer(invoice)", invoice=invoice) is invoice


def test_an_object_a_method_returns_is_usable_too() -> None:
    ledger = Ledger("USD")
    ledger.add(2)
    code = "inv = ledger.invoice_for('bob')\ninv.amounts.append(9)\nfinal_answer((inv.customer, inv.total()))"
    assert run_agent(code, ledger=ledger) == ("bob", 2)  # `inv.amounts` is a copy: data crosses as data


def test_attributes_set_by_the_code_are_set_on_the_users_object() -> None:
    invoice = Invoice("ada")
    run_agent("invoice.customer = 'grace'\nfinal_answer(invoice.customer)", invoice=invoice)
    assert invoice.customer == "grace"


def test_a_method_read_without_calling_it_calls_later() -> None:
    ledger = Ledger("EUR")
    assert run_agent("add = ledger.add\nadd(1)\nfinal_answer(add(2))", ledger=ledger) == 2


def test_objects_inside_containers_and_namedtuples() -> None:
    code = "final_answer([i.total() for i in invoices] + [p.x + p.y, sorted(dir(invoices[0]))[0]])"
    answer = run_agent(code, invoices=[Invoice("a", [1]), Invoice("b", [2, 3])], p=Point(4, 5))
    assert answer == [1, 5, 9, "amounts"]


def test_a_missing_attribute_is_an_attribute_error_the_code_can_catch() -> None:
    code = "try:\n    invoice.nope\nexcept AttributeError as e:\n    r = str(e)\nfinal_answer(r)"
    assert "nope" in run_agent(code, invoice=Invoice("a"))


def test_str_and_repr_are_the_objects_own() -> None:
    invoice = Invoice("a", [1])
    assert run_agent("final_answer(f'{invoice}|{invoice!r}')", invoice=invoice) == f"{invoice}|{invoice!r}"


# smolagents 1.26.0, tests/test_local_python_executor.py::TestEvaluateSubscript::
# test_evaluate_subscript_with_custom_class: an instance of a class passed in `state`, indexed by the code.
@pytest.mark.parametrize("subscriptable", [True, False])
def test_evaluate_subscript_with_custom_class(subscriptable: bool) -> None:
    if subscriptable:

        class Custom:
            def __getitem__(self, key: int) -> int:
                return key * 10

    else:

        class Custom:  # type: ignore[no-redef]
            pass

    state = {"obj": Custom()}
    subscript = ast.parse("obj[2]").body[0].value  # type: ignore[attr-defined]
    if subscriptable:
        assert evaluate_subscript(subscript, state, {}, {}, []) == 20
    else:
        with pytest.raises(InterpreterError, match="Could not index") as info:
            evaluate_subscript(subscript, state, {}, {}, [])
        assert "TypeError: 'Custom' object is not subscriptable" in str(info.value)


# smolagents 1.26.0, tests/test_local_python_executor.py::TestEvaluatePythonCode::test_access_attributes:
# a class passed in `state` (a class the user handed over is held too; one a method returns is not).
def test_a_class_in_state_is_usable() -> None:
    class A:
        attr = 2

    result, _ = evaluate_python_code("A.attr", {}, state={"A": A})
    assert result == 2
    instance, _ = evaluate_python_code("A()", {}, state={"A": A})
    assert isinstance(instance, A)


def test_an_agent_image_is_usable() -> None:
    from PIL import Image

    from smol_core.agent_types import AgentImage

    image = AgentImage(Image.new("RGB", (4, 3), "red"))
    assert run_agent("final_answer((image.to_raw().size, image.to_raw().getpixel((0, 0))))", image=image) == (
        (4, 3),
        (255, 0, 0),
    )


def test_an_array_a_method_returns_has_its_methods_without_numpy_authorized() -> None:
    audio = AgentAudio(np.array([0.0, -0.5, 0.25], dtype=np.float32), samplerate=8000)
    assert run_agent("final_answer(float(abs(audio.to_raw()).max()))", audio=audio) == 0.5
