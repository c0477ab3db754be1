"""An authorized package imports its own internals; the code still may not.

The regression: with `numpy` authorized, `np.arange(4).sum()` failed with "import of
'numpy._core._methods' is not allowed; '_core' is private", because numpy's C code imports its
helpers lazily through the `__import__` of the frame on top, the code's. These tests run the
everyday numpy and pandas surface, methods as well as functions, inside the sandbox.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from smol_core.executors.base import InterpreterError
from smol_core.executors.local import LocalPythonExecutor

pytest.importorskip("numpy")
pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def data_executor() -> Iterator[LocalPythonExecutor]:
    """One worker for the module: importing pandas in a fresh worker takes seconds."""
    ex = LocalPythonExecutor(["numpy", "pandas"], timeout_seconds=60)
    ex("import numpy as np\nimport pandas as pd")
    yield ex
    ex.close()


@pytest.mark.parametrize(
    "expression, expected",
    [
        ("np.arange(4).sum()", 6),
        ("np.arange(4).mean()", 1.5),
        ("round(float(np.arange(4).std()), 6)", 1.118034),
        ("np.arange(4).max()", 3),
        ("np.arange(4).min()", 0),
        ("bool(np.arange(4).any())", True),
        ("bool(np.arange(4).all())", False),
        ("np.arange(1, 5).prod()", 24),
        ("np.arange(4).clip(1, 2).tolist()", [1, 1, 2, 2]),
        ("float(np.arange(4).var())", 1.25),
        ("np.arange(12).reshape(3, 4).sum(axis=0).tolist()", [12, 15, 18, 21]),
        ("np.arange(4).cumsum().tolist()", [0, 1, 3, 6]),
        ("int(np.arange(4).argmax())", 3),
        ("np.array([1.26, 2.5]).round(1).tolist()", [1.3, 2.5]),
        ("np.array([3, 1, 2]).astype(float).tolist()", [3.0, 1.0, 2.0]),
        ("float(np.median(np.arange(5)))", 2.0),
        ("float(np.linalg.norm([3, 4]))", 5.0),
        ("int(np.where(np.arange(6) > 2, 1, 0).sum())", 3),
        ("np.unique([2, 1, 2]).tolist()", [1, 2]),
    ],
)
def test_numpy_methods_run(data_executor: LocalPythonExecutor, expression: str, expected: object) -> None:
    assert data_executor(expression).output == expected


@pytest.mark.parametrize(
    "expression, expected",
    [
        ("df['a'].sum()", 10),
        ("df['a'].mean()", 2.5),
        ("round(df['a'].std(), 6)", 1.290994),
        ("df.describe().loc['mean', 'a']", 2.5),
        ("df.groupby('b')['a'].mean().to_dict()", {"x": 2.0, "y": 3.0}),
        ("df.sort_values('a', ascending=False)['a'].tolist()", [4, 3, 2, 1]),
        ("df['c'].fillna(0).tolist()", [1.0, 2.0, 0.0, 4.0]),
        ("df['b'].value_counts().to_dict()", {"x": 2, "y": 2}),
        ("df.apply(lambda r: r['a'] * 2, axis=1).tolist()", [2, 4, 6, 8]),
        ("df['b'].str.upper().tolist()", ["X", "Y", "X", "Y"]),
        ("df['a'].rolling(2).mean().tolist()[1:]", [1.5, 2.5, 3.5]),
        ("df.pivot_table(index='b', values='a', aggfunc='sum')['a'].to_dict()", {"x": 4, "y": 6}),
        ("df.merge(df, on='a').shape", (4, 5)),
        ("df.isna().sum().to_dict()", {"a": 0, "b": 0, "c": 1}),
        ("df.query('a > 2').shape", (2, 3)),
        ("df.loc[df['a'] > 1, 'b'].tolist()", ["y", "x", "y"]),
        ("pd.to_datetime(['2024-01-02']).year.tolist()", [2024]),
    ],
)
def test_pandas_methods_run(data_executor: LocalPythonExecutor, expression: str, expected: object) -> None:
    data_executor(
        "df = pd.DataFrame({'a': [1, 2, 3, 4], 'b': ['x', 'y', 'x', 'y'], 'c': [1.0, 2.0, None, 4.0]})"
    )
    assert data_executor(expression).output == expected


@pytest.mark.parametrize(
    "code, message",
    [
        ("import numpy._core._methods", "Import of numpy._core._methods is not allowed"),
        ("from numpy._core import _methods", "importing the private name '_methods' is not allowed"),
        ("np._core", "private attribute '_core'"),
    ],
)
def test_the_code_still_cannot_import_private_modules(
    data_executor: LocalPythonExecutor, code: str, message: str
) -> None:
    data_executor("np.arange(4).sum()")  # the package has loaded its internal module
    with pytest.raises(InterpreterError, match=message):
        data_executor(code)


def test_the_internal_import_hands_the_code_nothing() -> None:
    """The C API's import (`fromlist` an empty list) loads a package's own private module and returns
    None; an import statement's (`fromlist` None or a tuple) is refused, as is another package's."""
    from smol_core.executors.worker.runtime import Guards
    from smol_core.executors.worker.views import Authorizer, ForbiddenImportError

    guards = Guards(Authorizer(["numpy"], {}))
    assert guards.import_("numpy._core._methods", {}, {}, [], 0) is None
    for fromlist in (None, (), ("_methods",)):
        with pytest.raises(ForbiddenImportError, match="'_core' is private"):
            guards.import_("numpy._core._methods", {}, {}, fromlist, 0)
    with pytest.raises(ForbiddenImportError, match="Import of pandas._libs is not allowed"):
        guards.import_("pandas._libs", {}, {}, [], 0)


def test_a_package_pattern_grants_the_package(make_executor: Callable[..., LocalPythonExecutor]) -> None:
    ex = make_executor(["numpy.*"])
    assert ex("import numpy as np\nnp.arange(4).sum()").output == 6
    assert ex("import numpy.random as rd\nrd.default_rng(1).random() < 1").output is True
    ex_dangerous = make_executor(["os.*"])
    with pytest.raises(InterpreterError, match="Import of os is not allowed"):
        ex_dangerous("import os")  # dangerous modules must still be named exactly
