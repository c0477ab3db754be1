"""`import a.b` and `import a.b as x` bind exactly what CPython binds, for every authorized form."""

from __future__ import annotations

import pytest

from smol_core.executors.base import InterpreterError

# (authorized imports, code whose last expression names what was bound, the value CPython gives)
CASES = [
    (["numpy.random"], "import numpy.random as rd\nrd.__name__", "numpy.random"),
    (
        ["numpy.random"],
        "import numpy.random\nnumpy.__name__, numpy.random.__name__",
        ("numpy", "numpy.random"),
    ),
    (["numpy.*"], "import numpy.linalg as la\nla.__name__", "numpy.linalg"),
    (["numpy.*"], "import numpy.linalg\nnumpy.linalg.__name__", "numpy.linalg"),
    (["numpy"], "import numpy.random as rd\nrd.__name__", "numpy.random"),
    (["numpy"], "import numpy.random\nnumpy.__name__, hasattr(numpy, 'array')", ("numpy", True)),
    (["xml.etree"], "import xml.etree as m\nm.__name__", "xml.etree"),
    (["xml.etree.ElementTree"], "import xml.etree.ElementTree as ET\nET.__name__", "xml.etree.ElementTree"),
    (
        ["xml.etree.ElementTree"],
        "import xml.etree.ElementTree\nxml.__name__, xml.etree.__name__, xml.etree.ElementTree.__name__",
        ("xml", "xml.etree", "xml.etree.ElementTree"),
    ),
    (
        ["numpy.random", "numpy.linalg"],
        "import numpy.random\nimport numpy.linalg\nnumpy.random.__name__, numpy.linalg.__name__",
        ("numpy.random", "numpy.linalg"),
    ),
    (["numpy.random"], "from numpy.random import default_rng\ndefault_rng.__name__", "default_rng"),
]


@pytest.mark.parametrize(("authorized", "code", "expected"), CASES)
def test_import_binds_what_cpython_binds(make_executor, authorized, code, expected):
    assert make_executor(authorized)(code).output == expected


def test_a_package_bound_only_as_a_path_exposes_nothing_else(make_executor):
    ex = make_executor(["numpy.random"])
    ex("import numpy.random")
    with pytest.raises(InterpreterError, match="'numpy' itself is not authorized"):
        ex("numpy.array([1])")
    with pytest.raises(InterpreterError, match="Import of numpy is not allowed"):
        ex("import numpy")


# os.path is posixpath underneath, a module the sandbox refuses: it is a view of its own instead
OS_PATH_CASES = [
    (["os.path"], "import os.path\nos.path.join('a', 'b')", "a/b"),
    (["os.path"], "import os.path as p\np.basename('/x/y.txt')", "y.txt"),
    (["os.path"], "from os.path import splitext\nsplitext('f.csv')", ("f", ".csv")),
    (["os"], "import os.path\nos.path.join('a', 'b'), os.getcwd() != ''", ("a/b", True)),
    (["os"], "from os.path import join\njoin('a', 'b')", "a/b"),
    (["os"], "from os import path\npath.dirname('/x/y')", "/x"),
]


@pytest.mark.parametrize(("authorized", "code", "expected"), OS_PATH_CASES)
def test_os_path_is_granted_by_its_name_or_by_os(make_executor, authorized, code, expected):
    assert make_executor(authorized)(code).output == expected


def test_os_path_alone_grants_nothing_of_os(make_executor):
    ex = make_executor(["os.path"])
    ex("import os.path")
    for code in ("os.system('true')", "os.path.os", "os.path.sys", "os.path.genericpath"):
        with pytest.raises(InterpreterError, match="not authorized|not available|no attribute|not allowed"):
            ex(code)
    for code in ("import os", "import posixpath", "from os import system"):
        with pytest.raises(InterpreterError, match="not allowed"):
            ex(code)


@pytest.mark.parametrize("authorized", [[], ["*"], ["posixpath.*"]])
def test_os_path_needs_naming(make_executor, authorized):
    with pytest.raises(InterpreterError, match="not allowed"):
        make_executor(authorized)("import os.path")
