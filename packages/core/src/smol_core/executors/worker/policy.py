"""What the sandbox allows: attribute names, dunders, builtins. Data only, shared by every guard.

Why a single table: the static checker (before compile), the runtime accessor (`getattr`, rewritten
attribute loads, `str.format` fields) and the audit hook (code compiled at runtime by the stdlib) must
agree, or the weakest one becomes the way out. Stdlib-only: this file is copied into workers.
Which modules the code may import is module_policy.py's.
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

# Object types (by module prefix) whose file-writing / pickling methods are refused.
DENIED_METHOD_OWNERS = ("numpy", "pandas")

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
