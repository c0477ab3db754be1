"""What the sandbox allows: attribute names, dunders, modules. Data only, shared by every guard.

Why a single table: the static checker (before compile), the runtime accessor (`getattr`, rewritten
attribute loads, `str.format` fields) and the audit hook (code compiled at runtime by the stdlib) must
agree, or the weakest one becomes the way out. Stdlib-only: this file is copied into workers.
"""

from __future__ import annotations

# Attributes that lead to interpreter internals: frames, code objects, globals, the class graph.
# Denied everywhere, whatever the object.
DENIED_ATTRIBUTES = frozenset(
    {
        # frames, code, tracebacks, generators, coroutines, async generators
        "gi_frame",
        "gi_code",
        "gi_yieldfrom",
        "cr_frame",
        "cr_code",
        "cr_await",
        "cr_origin",
        "ag_frame",
        "ag_code",
        "ag_await",
        "f_globals",
        "f_locals",
        "f_builtins",
        "f_back",
        "f_code",
        "f_trace",
        "f_trace_lines",
        "f_trace_opcodes",
        "tb_frame",
        "co_code",
        "co_consts",
        "co_names",
        "co_lnotab",
        "co_linetable",
        "co_exceptiontable",
        "func_globals",
        "func_code",
        "im_func",
        "im_self",
        # importer / loader machinery
        "load_module",
        "exec_module",
        "create_module",
        "get_code",
        "get_data",
        "get_source",
        "find_spec",
        "find_module",
        "_module",
        # dunders that open the object graph
        "__globals__",
        "__builtins__",
        "__subclasses__",
        "__code__",
        "__closure__",
        "__func__",
        "__self__",
        "__base__",
        "__bases__",
        "__mro__",
        "__getattribute__",
        "__reduce__",
        "__reduce_ex__",
        "__loader__",
        "__spec__",
        "__import__",
        "__wrapped__",
        "__objclass__",
        "__traceback__",
        "__context__",
        "__cause__",
        "__defaults__",
        "__kwdefaults__",
        "__path__",
        "__file__",
        "__cached__",
        "__getattr__",
        "__delattr__",
        "__class_getitem__",
        "__getnewargs__",
        "__getnewargs_ex__",
        "__init_subclass__",
        "__subclasshook__",
        "__prepare__",
        "__instancecheck__",
        "__subclasscheck__",
        "__set_name__",
        "__weakref__",
        "mro",
        "ctypes",
        # event loops: the loop owns the worker's descriptors (channel reader, self-pipe)
        "get_loop",
        "_get_loop",
        "_loop",
        "_selector",
    }
)

# Dunder attributes code may read with plain `obj.__x__` syntax. Anything else dunder is refused.
ALLOWED_DUNDERS = (
    frozenset(
        {
            "__init__",
            "__new__",
            "__name__",
            "__qualname__",
            "__doc__",
            "__module__",
            "__class__",
            "__version__",
            "__all__",
            "__annotations__",
            "__dataclass_fields__",
            "__dataclass_params__",
            "__post_init__",
            "__slots__",
            "__members__",
            "__args__",
            "__origin__",
            "__len__",
            "__iter__",
            "__next__",
            "__aiter__",
            "__anext__",
            "__await__",
            "__reversed__",
            "__contains__",
            "__getitem__",
            "__setitem__",
            "__delitem__",
            "__missing__",
            "__call__",
            "__enter__",
            "__exit__",
            "__aenter__",
            "__aexit__",
            "__str__",
            "__repr__",
            "__format__",
            "__bytes__",
            "__hash__",
            "__bool__",
            "__index__",
            "__int__",
            "__float__",
            "__complex__",
            "__round__",
            "__trunc__",
            "__floor__",
            "__ceil__",
            "__abs__",
            "__neg__",
            "__pos__",
            "__invert__",
            "__eq__",
            "__ne__",
            "__lt__",
            "__le__",
            "__gt__",
            "__ge__",
            "__setattr__",
            "__get__",
            "__set__",
            "__delete__",
            "__sizeof__",
            "__copy__",
            "__deepcopy__",
            "__getstate__",
            "__setstate__",
            "__del__",
            "__fspath__",
            "__length_hint__",
            *(
                f"__{p}{op}__"
                for op in (
                    "add",
                    "sub",
                    "mul",
                    "matmul",
                    "truediv",
                    "floordiv",
                    "mod",
                    "divmod",
                    "pow",
                    "lshift",
                    "rshift",
                    "and",
                    "xor",
                    "or",
                )
                for p in ("", "r", "i")
            ),
        }
    )
    - DENIED_ATTRIBUTES
)

# Dunders `getattr()`/`hasattr()` may name with a string: fewer than with plain syntax, since a
# string can be built at run time (and `getattr(x, "__class__")` is a classic first step out).
GETATTR_DUNDERS = frozenset(
    {
        "__name__",
        "__qualname__",
        "__doc__",
        "__module__",
        "__version__",
        "__annotations__",
        "__dataclass_fields__",
        "__len__",
        "__iter__",
    }
)

# Attribute names that are safe on most objects but must be checked at run time.
RUNTIME_CHECKED = frozenset(
    {"format", "format_map", "tofile", "dump", "to_pickle", "read_pickle", "__setattr__"}
)

# Builtins never given to the code.
DENIED_BUILTINS = frozenset(
    {
        "open",
        "eval",
        "exec",
        "compile",
        "breakpoint",
        "input",
        "globals",
        "locals",
        "help",
        "exit",
        "quit",
        "copyright",
        "credits",
        "license",
        "__import__",
        "__loader__",
        "__spec__",
        "__builtins__",
    }
)

# Modules that are a way out by themselves. Never granted by "*" or by a parent package: the code
# gets them only when named exactly in additional_authorized_imports, and then (for those with an
# entry in views.py) as a reduced view.
DANGEROUS_MODULES = frozenset(
    {
        "os",
        "posix",
        "nt",
        "sys",
        "subprocess",
        "ctypes",
        "_ctypes",
        "cffi",
        "socket",
        "_socket",
        "ssl",
        "select",
        "selectors",
        "signal",
        "pty",
        "tty",
        "termios",
        "fcntl",
        "resource",
        "mmap",
        "gc",
        "inspect",
        "builtins",
        "importlib",
        "imp",
        "pkgutil",
        "runpy",
        "zipimport",
        "marshal",
        "pickle",
        "_pickle",
        "shelve",
        "dbm",
        "copyreg",
        "code",
        "codeop",
        "pdb",
        "bdb",
        "trace",
        "tracemalloc",
        "faulthandler",
        "threading",
        "_thread",
        "multiprocessing",
        "concurrent",
        "asyncio.subprocess",
        "shutil",
        "tempfile",
        "io",
        "_io",
        "pathlib",
        "fileinput",
        "glob",
        "timeit",
        "doctest",
        "cProfile",
        "profile",
        "pydoc",
        "webbrowser",
        "urllib",
        "http",
        "ftplib",
        "smtplib",
        "poplib",
        "imaplib",
        "telnetlib",
        "socketserver",
        "xmlrpc",
        "sqlite3",
        "logging.config",
        "unittest",
        "venv",
        "ensurepip",
        "site",
        "sysconfig",
        "platform",
        "atexit",
        "_posixsubprocess",
        "posixpath",
        "ntpath",
        "genericpath",
        "zipfile",
        "tarfile",
        # dangerous parts of popular packages
        "numpy.ctypeslib",
        "numpy.f2py",
        "numpy.distutils",
        "numpy.testing",
        "numpy.lib.format",
        "numpy.lib.npyio",
        "numpy._pytesttester",
        "pandas.io.pickle",
        "pandas.io.clipboard",
        "pandas.io.clipboards",
        "pandas.testing",
        "pandas.util.testing",
        "pandas._testing",
        # test suites, installers, GUIs and the smol packages themselves: never code's tools
        "test",
        "idlelib",
        "tkinter",
        "turtle",
        "turtledemo",
        "lib2to3",
        "distutils",
        "pip",
        "setuptools",
        "pkg_resources",
        "_distutils_hack",
        "xxsubtype",
        "xxlimited",
        "xxlimited_35",
        "antigravity",
        "smol",
        "smol_core",
    }
)

# Private top-level modules a grant ("*" or "pkg.*") may still hand out: C accelerators that public
# modules import themselves and that only compute (no files, processes, interpreters or raw memory).
# Any other `_name` (`_xxsubinterpreters`, `_testcapi`, `_imp`, `_posixsubprocess`, `_signal`...) runs
# code outside the guards and must be named exactly; a private submodule (`pkg._internal`) is never
# granted by a pattern: the package imports it itself when it needs it.
SAFE_PRIVATE_MODULES = frozenset(
    {
        "_abc",
        "_bisect",
        "_blake2",
        "_bz2",
        "_collections",
        "_collections_abc",
        "_compression",
        "_contextvars",
        "_csv",
        "_datetime",
        "_decimal",
        "_functools",
        "_heapq",
        "_json",
        "_lzma",
        "_md5",
        "_operator",
        "_pydatetime",
        "_pydecimal",
        "_queue",
        "_random",
        "_sha1",
        "_sha2",
        "_sha256",
        "_sha3",
        "_sha512",
        "_statistics",
        "_string",
        "_strptime",
        "_struct",
        "_typing",
        "_uuid",
        "_weakrefset",
        "_zoneinfo",
    }
)

# Types whose private attributes (and `__dict__`) code may not read, whatever the path: event loops,
# tasks and futures (`loop._selector`, `task._loop`), threads, selectors, files and sockets hold the
# worker's own descriptors; smol's own objects hold the channel to the host.
PRIVATE_STATE_OWNERS = (
    "asyncio",
    "_asyncio",
    "selectors",
    "threading",
    "_thread",
    "concurrent",
    "socket",
    "_socket",
    "io",
    "_io",
    "_pyio",
    "subprocess",
    "multiprocessing",
    "smol_core",
)

# Module attributes that are a way out even inside an authorized module (file or pickle access).
DENIED_MODULE_ATTRIBUTES: dict[str, frozenset[str]] = {
    # smolagents' DANGEROUS_FUNCTIONS: refused even where their module is named exactly (the real
    # eval/exec/compile run source no rewrite guards; globals/locals expose the namespace dicts)
    "builtins": frozenset({"compile", "eval", "exec", "globals", "locals"}),
    "posix": frozenset({"system", "popen"}),
    "numpy": frozenset(
        {
            "load",
            "save",
            "savez",
            "savez_compressed",
            "fromfile",
            "memmap",
            "DataSource",
            "ctypeslib",
            "loadtxt",
            "genfromtxt",
            "savetxt",
            "f2py",
            "distutils",
            "testing",
            "tofile",
        }
    ),
    "pandas": frozenset(
        {
            "read_pickle",
            "to_pickle",
            "read_clipboard",
            "eval",
            "read_sql",
            "read_sql_query",
            "read_sql_table",
            "HDFStore",
            "testing",
        }
    ),
    "string": frozenset({"Formatter"}),
    "types": frozenset(
        {
            "CodeType",
            "FunctionType",
            "LambdaType",
            "FrameType",
            "CellType",
            "TracebackType",
            "MethodType",
            "BuiltinFunctionType",
        }
    ),
}

# Object types (by module prefix) whose file-writing / pickling methods are refused.
DENIED_METHOD_OWNERS = ("numpy", "pandas")

# Modules importable without authorization, always as reduced views (see views.py).
ALWAYS_VIEWED = frozenset({"asyncio", "__future__"})

# Names that code compiled at run time by the stdlib (typing's eval of string annotations,
# namedtuple and dataclass templates) may not use: there the real builtins can be in scope.
RUNTIME_COMPILE_DENIED_NAMES = frozenset(
    {
        "__import__",
        "__builtins__",
        "getattr",
        "setattr",
        "delattr",
        "vars",
        "globals",
        "locals",
        "open",
        "eval",
        "exec",
        "compile",
        "breakpoint",
        "input",
        "__loader__",
        "__spec__",
    }
)

# Dunder names code may use as plain variables.
ALLOWED_DUNDER_NAMES = frozenset(
    {
        "__name__",
        "__doc__",
        "__class__",
        "__qualname__",
        "__module__",
        "__slots__",
        "__match_args__",
        "__annotations__",
        "__all__",
    }
)

# Attribute names refused in code compiled at run time (stdlib templates legitimately use other
# dunders, such as `__delattr__` in frozen dataclasses).
RUNTIME_COMPILE_DENIED_ATTRIBUTES = frozenset(
    {
        "gi_frame",
        "gi_code",
        "cr_frame",
        "cr_code",
        "ag_frame",
        "ag_code",
        "f_globals",
        "f_locals",
        "f_builtins",
        "f_back",
        "f_code",
        "tb_frame",
        "co_code",
        "co_consts",
        "load_module",
        "exec_module",
        "_module",
        "__globals__",
        "__builtins__",
        "__subclasses__",
        "__code__",
        "__closure__",
        "__base__",
        "__bases__",
        "__mro__",
        "__getattribute__",
        "__reduce__",
        "__reduce_ex__",
        "__loader__",
        "__spec__",
        "__import__",
        "__self__",
        "__func__",
        "mro",
        "__traceback__",
        "__objclass__",
        "__wrapped__",
    }
)
