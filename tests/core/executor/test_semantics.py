"""The whole language runs, as real CPython, and state persists between calls."""

from __future__ import annotations

import textwrap

import pytest

from smol_core.executors.base import InterpreterError


def run(executor, code: str):
    return executor(textwrap.dedent(code))


def test_last_expression_is_output(executor):
    out = run(executor, "x = 1\ny = 2\nx + y")
    assert out.output == 3 and out.logs == "" and not out.is_final_answer


def test_final_assignment_is_output(executor):
    assert run(executor, "z = 41 + 1").output == 42


def test_no_trailing_expression_gives_none(executor):
    assert run(executor, "for i in range(3):\n    pass").output is None


def test_state_persists(executor):
    run(
        executor,
        """
        import math
        def area(r):
            return math.pi * r * r
        class Box:
            def __init__(self, v):
                self.v = v
        b = Box(3)
        counter = 10
    """,
    )
    out = run(executor, "counter += 1\n(round(area(1), 3), b.v, counter, math.sqrt(9))")
    assert out.output == (3.142, 3, 11, 3.0)


def test_print_sep_end_and_file(executor):
    out = (
        run(
            executor,
            """
        import sys
        print("a", "b", sep="-", end="!\\n")
        print("c", file=sys.stdout)
    """,
        )
        if False
        else run(executor, 'print("a", "b", sep="-", end="!\\n")\nprint(1, 2)')
    )
    assert out.logs == "a-b!\n1 2\n"


def test_print_to_sys_stdout_when_sys_authorized(make_executor):
    ex = make_executor(["sys"])
    out = ex('import sys\nprint("x", file=sys.stdout)\nsys.stdout.write("y\\n")\nsys.version_info[0]')
    assert out.logs == "x\ny\n" and out.output == 3


def test_print_to_stringio(make_executor):
    ex = make_executor(["io"])
    out = ex("import io\nbuf = io.StringIO()\nprint('hi', file=buf)\nbuf.getvalue()")
    assert out.output == "hi\n" and out.logs == ""


def test_max_print_outputs_length(make_executor):
    ex = make_executor(max_print_outputs_length=20)
    out = ex("for i in range(100):\n    print(i)")
    assert out.logs.startswith("0\n1\n2\n") and "truncated" in out.logs and len(out.logs) < 120


def test_classes_inheritance_super_and_private_names(executor):
    out = run(
        executor,
        """
        class Base:
            def __init__(self, x):
                self._x = x
                self.__secret = 7
            def secret(self):
                return self.__secret
            def __repr__(self):
                return f"{type(self).__name__}({self._x!r})"
        class Child(Base):
            def __init__(self, x, y):
                super().__init__(x)
                self.y = y
            def total(self):
                return self._x + self.y + self.secret()
        c = Child(1, 2)
        (c.total(), repr(c), isinstance(c, Base), c._Base__secret, Child.__name__, c.__class__.__name__)
    """,
    )
    assert out.output == (10, "Child(1)", True, 7, "Child", "Child")


def test_dataclass_and_decorators(executor):
    out = run(
        executor,
        """
        from dataclasses import dataclass, field
        import functools
        @dataclass(frozen=True)
        class Point:
            x: int
            y: int = 0
            tags: tuple = field(default_factory=tuple)
        def twice(f):
            @functools.wraps(f)
            def wrapper(*a, **k):
                return f(*a, **k) * 2
            return wrapper
        @twice
        def add(a, b=1):
            return a + b
        @functools.lru_cache(maxsize=None)
        def fib(n):
            return n if n < 2 else fib(n - 1) + fib(n - 2)
        (Point(1), add(2), add.__name__, fib(50), Point(1, 2) == Point(1, 2))
    """,
    )
    assert repr(out.output[0]) == "Point(x=1, y=0, tags=())"
    assert out.output[1:] == (6, "add", 12586269025, True)


def test_generators_and_yield_from(executor):
    out = run(
        executor,
        """
        def gen(n):
            for i in range(n):
                received = yield i
                if received:
                    yield received
        def chain():
            yield from gen(2)
            yield from (x * 10 for x in range(2))
        g = gen(3)
        first = next(g)
        sent = g.send("hello")
        (list(chain()), first, sent)
    """,
    )
    assert out.output == ([0, 1, 0, 10], 0, "hello")


def test_match_walrus_global_nonlocal(executor):
    out = run(
        executor,
        """
        total = 0
        def bump():
            global total
            total += 5
        def counter():
            n = 0
            def inc():
                nonlocal n
                n += 1
                return n
            return inc
        inc = counter(); inc(); inc()
        bump()
        def describe(v):
            match v:
                case {"kind": "point", "x": x, "y": y}:
                    return f"point {x},{y}"
                case [first, *rest]:
                    return f"list {first} +{len(rest)}"
                case int(n) if n > 10:
                    return "big"
                case _:
                    return "other"
        results = [describe(v) for v in ({"kind": "point", "x": 1, "y": 2}, [1, 2, 3], 50, "s")]
        if (m := len(results)) > 3:
            pass
        (total, inc(), results, m)
    """,
    )
    assert out.output == (5, 3, ["point 1,2", "list 1 +2", "big", "other"], 4)


def test_star_targets_kwonly_posonly_lambdas(executor):
    out = run(
        executor,
        """
        first, *middle, last = range(5)
        def f(a, b, /, c, *, d=4, **kw):
            return a + b + c + d + sum(kw.values())
        fs = [lambda x, i=i: x + i for i in range(3)]
        (first, middle, last, f(1, 2, 3, e=10), [g(10) for g in fs])
    """,
    )
    assert out.output == (0, [1, 2, 3], 4, 20, [10, 11, 12])


def test_fstrings_conversions_and_format(executor):
    out = run(
        executor,
        """
        name = "bob"
        v = 3.14159
        (f"{name!r} {name!s:>5} {v:.2f} {v=}", "{} and {k}".format(1, k=2), "{0:>4}".format(7),
         "%s-%d" % ("a", 3), "{a}".format_map({"a": 1}))
    """,
    )
    assert out.output == ("'bob'   bob 3.14 v=3.14159", "1 and 2", "   7", "a-3", "1")


def test_loops_else_and_comprehensions(executor):
    out = run(
        executor,
        """
        found = None
        for i in range(10):
            if i * i > 20:
                found = i
                break
        else:
            found = -1
        n = 0
        while n < 3:
            n += 1
        else:
            n += 100
        pairs = [(x, y) for x in range(3) for y in range(3) if x < y]
        d = {k: v for k, v in zip("abc", range(3))}
        s = {x % 3 for x in range(10)}
        (found, n, pairs, d, s)
    """,
    )
    assert out.output == (5, 103, [(0, 1), (0, 2), (1, 2)], {"a": 0, "b": 1, "c": 2}, {0, 1, 2})


def test_try_except_finally_and_except_star(executor):
    out = run(
        executor,
        """
        log = []
        try:
            try:
                1 / 0
            except ZeroDivisionError as e:
                log.append(type(e).__name__)
                raise ValueError("wrapped") from e
            finally:
                log.append("finally")
        except ValueError as e:
            log.append(str(e))
        try:
            raise ExceptionGroup("g", [KeyError("k"), TypeError("t")])
        except* KeyError:
            log.append("key")
        except* TypeError:
            log.append("type")
        log
    """,
    )
    assert out.output == ["ZeroDivisionError", "finally", "wrapped", "key", "type"]


def test_async_def_and_top_level_await(executor):
    out = run(
        executor,
        """
        import asyncio
        async def double(x):
            await asyncio.sleep(0)
            return 2 * x
        results = await asyncio.gather(*(double(i) for i in range(4)))
        results
    """,
    )
    assert out.output == [0, 2, 4, 6]


def test_asyncio_run_without_top_level_await(executor):
    out = run(
        executor,
        """
        import asyncio
        async def main():
            async with asyncio.timeout(5):
                return sum(await asyncio.gather(asyncio.sleep(0, result=1), asyncio.sleep(0, result=2)))
        asyncio.run(main())
    """,
    )
    assert out.output == 3


def test_context_managers_and_properties(executor):
    out = run(
        executor,
        """
        class Res:
            def __init__(self):
                self.events = []
            def __enter__(self):
                self.events.append("in")
                return self
            def __exit__(self, *exc):
                self.events.append("out")
                return False
            @property
            def count(self):
                return len(self.events)
            @staticmethod
            def s():
                return "s"
            @classmethod
            def c(cls):
                return cls.__name__
        with Res() as r:
            pass
        (r.events, r.count, Res.s(), Res.c())
    """,
    )
    assert out.output == (["in", "out"], 2, "s", "Res")


def test_typing_enum_abc_json(executor):
    out = run(
        executor,
        """
        from typing import NamedTuple, Optional
        from enum import Enum
        from abc import ABC, abstractmethod
        import json
        class Color(Enum):
            RED = 1
        class P(NamedTuple):
            x: int
            y: Optional[int] = None
        class Shape(ABC):
            @abstractmethod
            def area(self): ...
        class Sq(Shape):
            def area(self):
                return 4
        (Color.RED.name, P(1), Sq().area(), json.loads(json.dumps({"a": [1, 2]})))
    """,
    )
    assert out.output == ("RED", (1, None), 4, {"a": [1, 2]})


def test_base_modules(executor):
    out = run(
        executor,
        """
        import collections, datetime, itertools, math, queue, random, re, statistics, time, unicodedata, stat
        random.seed(1)
        q = queue.Queue(); q.put(3)
        (collections.Counter("aab").most_common(1), datetime.date(2024, 1, 2).isoformat(),
         list(itertools.islice(itertools.count(), 3)), math.gcd(12, 18), q.get(),
         re.findall(r"\\d+", "a1b22"), statistics.mean([1, 2, 3]), unicodedata.name("a"),
         stat.S_ISDIR(0o040000), type(time.time()).__name__)
    """,
    )
    assert out.output[:-1] == (
        [("a", 2)],
        "2024-01-02",
        [0, 1, 2],
        6,
        3,
        ["1", "22"],
        2,
        "LATIN SMALL LETTER A",
        True,
    )


def test_import_submodule_patterns(make_executor):
    ex = make_executor(["collections.*", "xml.*"])
    out = ex(
        "import collections.abc\nfrom xml.etree import ElementTree as ET\n"
        "(isinstance([], collections.abc.Sequence), ET.fromstring('<a>1</a>').text)"
    )
    assert out.output == (True, "1")


def test_star_authorizes_harmless_modules(make_executor):
    ex = make_executor(["*"])
    assert ex("import csv, textwrap, hashlib\ntextwrap.shorten('hello world', 11)").output == "hello world"
    with pytest.raises(InterpreterError, match="os"):
        ex("import os")


def test_numpy_and_pandas(make_executor):
    np = pytest.importorskip("numpy")
    pd = pytest.importorskip("pandas")
    ex = make_executor(["numpy", "pandas"])
    out = ex(
        textwrap.dedent("""
        import numpy as np
        import pandas as pd
        a = np.arange(12).reshape(3, 4)
        df = pd.DataFrame({"x": [1, 2, 3], "y": ["a", "b", "c"]})
        df["z"] = df["x"] * 2.5
        print(df.describe().loc["mean", "x"])
        (a.sum(axis=0), np.linalg.norm(np.array([3.0, 4.0])), df, df["z"], np.random.default_rng(0).integers(0, 10, 3).shape)
    """)
    )
    arr, norm, frame, series, shape = out.output
    assert np.array_equal(arr, np.array([12, 15, 18, 21]))
    assert norm == 5.0 and shape == (3,)
    pd.testing.assert_frame_equal(
        frame, pd.DataFrame({"x": [1, 2, 3], "y": ["a", "b", "c"], "z": [2.5, 5.0, 7.5]})
    )
    assert list(series) == [2.5, 5.0, 7.5] and series.name == "z"
    assert out.logs.strip() == "2.0"


def test_send_variables(executor):
    executor.send_variables({"data": {"a": [1, 2]}, "when": (1, 2)})
    assert executor("data['a'][1] + when[0]").output == 3


def test_reset_forgets_state(executor):
    executor("x = 1")
    executor.reset()
    with pytest.raises(InterpreterError, match="NameError"):
        executor("x")
    assert executor("final_answer(2)").output == 2


def test_context_manager_and_close_idempotent(make_executor):
    ex = make_executor()
    with ex as e:
        assert e("1 + 1").output == 2
    ex.close()
    with pytest.raises(InterpreterError):
        ex("1")


def test_output_values_cross_back(executor):
    out = (
        run(
            executor,
            """
        import datetime, decimal
        from fractions import Fraction
        (b"raw", {1, 2}, frozenset({3}), 1 + 2j, datetime.datetime(2024, 5, 6, 7, 8), {(1, 2): "t"},
         datetime.timedelta(seconds=5), object())
    """,
        )
        if False
        else run(
            executor,
            """
        import datetime
        (b"raw", {1, 2}, frozenset({3}), 1 + 2j, datetime.datetime(2024, 5, 6, 7, 8), {(1, 2): "t"},
         datetime.timedelta(seconds=5))
    """,
        )
    )
    import datetime

    assert out.output == (
        b"raw",
        {1, 2},
        frozenset({3}),
        1 + 2j,
        datetime.datetime(2024, 5, 6, 7, 8),
        {(1, 2): "t"},
        datetime.timedelta(seconds=5),
    )


def test_unserializable_output_is_labelled_repr(executor):
    from smol_core.executors.worker.protocol import UnserializableValue

    out = executor("class Thing:\n    def __repr__(self):\n        return 'Thing!'\nThing()")
    assert isinstance(out.output, UnserializableValue)
    assert repr(out.output) == "Thing!" and out.output.type_name.endswith("Thing")


def test_match_class_patterns_with_dataclasses(executor):
    out = run(
        executor,
        """
        from dataclasses import dataclass
        @dataclass
        class Point:
            x: int
            y: int
        def where(p):
            match p:
                case Point(0, 0):
                    return "origin"
                case Point(x=0, y=y):
                    return f"on y at {y}"
                case Point(x, y) if x == y:
                    return "diagonal"
                case int(n) | float(n):
                    return f"number {n}"
                case _:
                    return "elsewhere"
        [where(v) for v in (Point(0, 0), Point(0, 5), Point(2, 2), Point(1, 2), 3)]
    """,
    )
    assert out.output == ["origin", "on y at 5", "diagonal", "elsewhere", "number 3"]


def test_frozen_dataclass_object_setattr(executor):
    out = run(
        executor,
        """
        from dataclasses import dataclass
        @dataclass(frozen=True)
        class P:
            x: int
            def __post_init__(self):
                object.__setattr__(self, "x", self.x * 2)
        P(2).x
    """,
    )
    assert out.output == 4
