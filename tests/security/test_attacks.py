"""Public Python-sandbox escapes and resource attacks, each of which must be stopped.

Every case must end in InterpreterError (blocked, failed, or stopped within limits), print nothing
marked ESCAPED, leave the host's environment and files untouched, and leave the executor usable.
"""

from __future__ import annotations

import pytest
from security_helpers import CANARY, assert_host_untouched, get_executor

from smol_core.executors.base import InterpreterError

N: list[str] = []  # no extra imports

# (id, additional_authorized_imports, code)
CASES: list[tuple[str, list[str], str]] = [
    # --- class-graph walks --------------------------------------------------------------------
    ("subclasses_object", N, "object.__subclasses__()"),
    ("subclasses_via_type_call", N, "type.__subclasses__(object)"),
    ("subclasses_via_mro", N, "().__class__.__mro__[-1].__subclasses__()"),
    ("bases_tuple", N, "''.__class__.__bases__[0]"),
    ("mro_method", N, "int.mro()"),
    ("type_dict_subclasses", N, "type.__dict__['__subclasses__'](object)"),
    ("vars_type", N, "vars(type)['__subclasses__'](object)"),
    ("vars_object", N, "vars(object)"),
    ("getattr_subclasses", N, "getattr(object, '__subcl' + 'asses__')()"),
    ("getattr_class", N, "getattr(1, '__class__')"),
    ("getattr_base_chain", N, "getattr(getattr((), '__cl'+'ass__'), '__ba'+'se__')"),
    ("object_getattribute", N, "object.__getattribute__(object, '__subclasses__')()"),
    ("type_getattribute", N, "type.__getattribute__(int, '__bases__')"),
    (
        "super_getattribute",
        N,
        "class A:\n    def f(self):\n        return super().__getattribute__('__class__')\nA().f()",
    ),
    ("dunder_getattr_string_concat", N, "n = '__glo' + 'bals__'\ndef f(): pass\ngetattr(f, n)"),
    (
        "hasattr_probe_then_getattr",
        N,
        "def f(): pass\nhasattr(f, '__globals__') or getattr(f, '__globals__')",
    ),
    ("setattr_class", N, "class A: pass\nsetattr(A(), '__class__', int)"),
    ("delattr_dunder", N, "class A: pass\ndelattr(A, '__init__')"),
    # --- function / frame / code internals ----------------------------------------------------
    ("func_globals", N, "def f(): pass\nf.__globals__['__builtins__']"),
    ("func_code", N, "def f(): pass\nf.__code__"),
    ("func_closure", N, "def o():\n    x = 1\n    def i(): return x\n    return i\no().__closure__"),
    ("lambda_globals", N, "(lambda: 0).__globals__"),
    ("builtin_self", N, "len.__self__"),
    ("print_self_chain", N, "print.__self__"),
    ("method_func", N, "class A:\n    def m(self): pass\nA().m.__func__"),
    ("bound_method_self_module", N, "import random\nrandom.random.__self__"),
    ("generator_frame", N, "def g():\n    yield 1\ng().gi_frame.f_globals"),
    ("generator_code", N, "def g():\n    yield 1\ng().gi_code"),
    ("genexp_frame_back", N, "(x for x in [1]).gi_frame.f_back"),
    ("coroutine_frame", N, "async def c(): pass\nco = c()\nco.cr_frame"),
    ("async_gen_frame", N, "async def a():\n    yield 1\na().ag_frame"),
    ("traceback_frame", N, "try:\n    1/0\nexcept Exception as e:\n    e.__traceback__.tb_frame"),
    (
        "traceback_via_getattr",
        N,
        "try:\n    1/0\nexcept Exception as e:\n    getattr(getattr(e, '__traceback__'), 'tb_frame')",
    ),
    (
        "exc_info_frame",
        ["sys"],
        "import sys\ntry:\n    1/0\nexcept Exception:\n    sys.exc_info()[2].tb_frame",
    ),
    (
        "exit_handler_tb_frame",
        N,
        "class C:\n    def __enter__(self): return self\n    def __exit__(self, t, v, tb):\n        tb.tb_frame.f_globals\nwith C():\n    1/0",
    ),
    ("code_object_consts", N, "def f(): return 1\nf.__code__.co_consts"),
    ("code_replace", N, "def f(): pass\nf.__code__.replace(co_code=b'')"),
    ("func_defaults_dunder", N, "def f(x=1): pass\nf.__defaults__"),
    (
        "wrapped_attr",
        ["functools"],
        "import functools\n@functools.wraps(print)\ndef f(): pass\nf.__wrapped__",
    ),
    ("class_init_globals", N, "class A:\n    def __init__(self): pass\nA.__init__.__globals__"),
    ("reduce_ex", N, "(1).__reduce_ex__(2)"),
    ("reduce", N, "[].__reduce__()"),
    ("init_subclass_attr", N, "class A:\n    pass\nA.__init_subclass__"),
    ("dunder_spec_loader", ["json"], "import json\njson.__loader__"),
    ("module_spec", ["json"], "import json\njson.__spec__"),
    ("module_dict", ["json"], "import json\njson.__dict__"),
    ("module_file", ["json"], "import json\njson.__file__"),
    ("vars_module", ["json"], "import json\nvars(json)['__builtins__']"),
    ("class_dict_of_type", N, "int.__dict__"),
    # --- builtins and namespaces --------------------------------------------------------------
    ("builtins_name", N, "__builtins__"),
    ("builtins_via_getattr_module", ["json"], "import json\ngetattr(json, '__builtins__')"),
    ("globals_call", N, "globals()"),
    ("locals_call", N, "locals()['__builtins__']"),
    ("vars_noarg", N, "vars()"),
    ("dunder_import_name", N, "__import__('os')"),
    ("import_via_builtins_dict", N, "print.__globals__['__builtins__']['__import__']('os')"),
    ("eval", N, "eval('1')"),
    ("exec", N, "exec('x=1')"),
    ("compile", N, "compile('1', 'f', 'eval')"),
    ("open_read", N, "open('/etc/passwd').read()"),
    ("open_write", N, "open('/tmp/smol_pwned_marker', 'w').write('x')"),
    ("breakpoint", N, "breakpoint()"),
    ("input", N, "input()"),
    ("help", N, "help(len)"),
    ("reserved_name", N, "__smol_getattr__(1, '__class__')"),
    ("reserved_name_assign", N, "__smol_getattr__ = getattr"),
    ("build_class_name", N, "__build_class__"),
    ("loader_name", N, "__loader__"),
    ("spec_name", N, "__spec__"),
    # --- imports ------------------------------------------------------------------------------
    ("import_os", N, "import os"),
    ("import_subprocess", N, "import subprocess"),
    ("import_sys", N, "import sys"),
    ("import_ctypes", N, "import ctypes"),
    ("import_socket", N, "import socket"),
    ("import_pickle", N, "import pickle"),
    ("import_marshal", N, "import marshal"),
    ("import_gc", N, "import gc"),
    ("import_inspect", N, "import inspect"),
    ("import_builtins", N, "import builtins"),
    ("import_importlib", N, "import importlib"),
    ("import_threading", N, "import threading"),
    ("import_multiprocessing", N, "import multiprocessing"),
    ("import_shutil", N, "import shutil"),
    ("import_io", N, "import io"),
    ("import_pathlib", N, "import pathlib"),
    ("import_codecs_open", ["codecs"], "import codecs\ncodecs.open('/etc/passwd').read()"),
    ("import_signal", N, "import signal"),
    ("import_timeit_exec", N, "import timeit"),
    ("relative_import", N, "from . import x"),
    ("from_import_private", N, "from random import _os"),
    ("star_does_not_grant_os", ["*"], "import os"),
    ("star_does_not_grant_subprocess", ["*"], "import subprocess"),
    ("star_does_not_grant_ctypes", ["*"], "import ctypes"),
    ("star_timeit", ["*"], "import timeit\ntimeit.timeit('0', number=1)"),
    ("star_logging_config", ["*"], "import logging.config"),
    ("star_pkgutil_resolve", ["*"], "import pkgutil\npkgutil.resolve_name('os:system')"),
    ("posixpath_os", ["*"], "import posixpath"),
    ("dangerous_submodule_by_pattern", ["collections.*"], "import os.path"),
    ("importlib_os", ["importlib"], "import importlib\nimportlib.import_module('subprocess')"),
    ("importlib_reload", ["importlib"], "import importlib, math\nimportlib.reload(math)"),
    ("importlib_util", ["importlib"], "import importlib\nimportlib.util"),
    ("sys_modules", ["sys"], "import sys\nsys.modules['os']"),
    ("sys_getframe", ["sys"], "import sys\nsys._getframe()"),
    ("sys_settrace", ["sys"], "import sys\nsys.settrace(print)"),
    ("sys_setrecursionlimit", ["sys"], "import sys\nsys.setrecursionlimit(10**9)"),
    ("sys_stdout_buffer_fd", ["sys"], "import sys\nsys.__stdout__.fileno()"),
    ("sys_meta_path", ["sys"], "import sys\nsys.meta_path"),
    ("os_system", ["os"], "import os\nos.system('touch /tmp/smol_pwned_marker')"),
    ("os_popen", ["os"], "import os\nos.popen('id')"),
    ("os_fork", ["os"], "import os\nos.fork()"),
    ("os_exec", ["os"], "import os\nos.execv('/bin/sh', ['sh'])"),
    ("os_kill_parent", ["os"], "import os\nos.kill(os.getppid(), 9)"),
    ("os_open_fd", ["os"], "import os\nos.open('/etc/passwd', os.O_RDONLY)"),
    ("os_chdir", ["os"], "import os\nos.chdir('/')"),
    ("os_putenv", ["os"], "import os\nos.putenv('X', '1')"),
    ("os_write_outside_scratch", ["os"], "import os\nos.makedirs('/tmp/smol_pwned_marker')"),
    ("os_remove_outside", ["os"], "import os\nos.remove('/etc/hostname')"),
    ("os_listdir_root", ["os"], "import os\nos.listdir('/root')"),
    ("os_path_module_os", ["os"], "import os\nos.path.os"),
    # --- authorized modules handing out others ------------------------------------------------
    ("random_os", N, "import random\nrandom._os"),
    ("random_os_getattr", N, "import random\ngetattr(random, '_os')"),
    ("random_inst_private", N, "import random\nrandom._inst"),
    ("statistics_sys", N, "import statistics\nstatistics.sys"),
    ("queue_threading", N, "import queue\nqueue.threading"),
    ("collections_sys", N, "import collections\ncollections._sys"),
    ("re_private_compile", N, "import re\nre._compiler"),
    ("datetime_sys", N, "import datetime\ndatetime.sys"),
    ("warnings_sys", ["warnings"], "import warnings\nwarnings.sys.modules['os']"),
    ("json_decoder_re_sys", ["json"], "import json\njson.decoder.re.sys"),
    ("map_getattr_module", ["warnings"], "import warnings\nlist(map(getattr, [warnings], ['sys']))"),
    (
        "filter_getattr",
        ["warnings"],
        "import warnings\nlist(filter(None, map(getattr, [warnings]*2, ['sys', 'os'])))",
    ),
    (
        "partial_getattr",
        ["functools", "warnings"],
        "import functools, warnings\nfunctools.partial(getattr, warnings)('sys')",
    ),
    (
        "reduce_getattr",
        ["functools"],
        "import functools\nfunctools.reduce(getattr, ['__class__', '__base__'], ())",
    ),
    ("operator_attrgetter", ["operator"], "import operator\noperator.attrgetter('__class__.__base__')(())"),
    (
        "operator_methodcaller",
        ["operator"],
        "import operator\noperator.methodcaller('__subclasses__')(object)",
    ),
    ("catch_warnings_module", ["warnings"], "import warnings\nwarnings.catch_warnings()._module"),
    (
        "catch_warnings_getattr",
        ["warnings"],
        "import warnings\ngetattr(warnings.catch_warnings(), '_module')",
    ),
    ("string_formatter", ["string"], "import string\nstring.Formatter().format('{0.__class__}', 1)"),
    ("types_codetype", ["types"], "import types\ntypes.CodeType"),
    ("types_functiontype", ["types"], "import types\ntypes.FunctionType"),
    (
        "typing_get_type_hints_eval",
        ["typing"],
        "import typing\ndef f(x: '().__class__.__base__.__subclasses__()'): pass\ntyping.get_type_hints(f)",
    ),
    (
        "typing_forward_ref_module",
        ["typing"],
        "import typing\nclass A:\n    __module__ = 'typing'\n    x: 'getattr(sys, \"modules\")'\ntyping.get_type_hints(A)",
    ),
    (
        "typing_eval_open",
        ["typing"],
        "import typing\nclass A:\n    __module__ = 'typing'\n    x: 'open(\"/etc/passwd\")'\ntyping.get_type_hints(A)",
    ),
    (
        "dataclass_string_annotation",
        ["dataclasses", "typing"],
        "import typing\nfrom dataclasses import dataclass\n@dataclass\nclass A:\n    x: '__import__(\"os\")'\ntyping.get_type_hints(A)",
    ),
    ("numpy_ctypeslib", ["numpy"], "import numpy as np\nnp.ctypeslib"),
    ("numpy_load_pickle", ["numpy"], "import numpy as np\nnp.load('x.npy', allow_pickle=True)"),
    ("numpy_lib_format", ["numpy"], "import numpy as np\nnp.lib.format.read_array"),
    ("numpy_import_lib_format", ["numpy"], "import numpy.lib.format"),
    ("numpy_tofile", ["numpy"], "import numpy as np\nnp.arange(3).tofile('/tmp/smol_pwned_marker')"),
    ("numpy_dump", ["numpy"], "import numpy as np\nnp.arange(3).dump('/tmp/smol_pwned_marker')"),
    ("numpy_ctypes_attr", ["numpy"], "import numpy as np\nnp.arange(3).ctypes.data"),
    ("numpy_fromfile", ["numpy"], "import numpy as np\nnp.fromfile('/etc/passwd')"),
    ("numpy_testing_subprocess", ["numpy"], "import numpy as np\nnp.testing"),
    ("numpy_f2py", ["numpy"], "import numpy.f2py"),
    ("numpy_private_core", ["numpy"], "import numpy as np\nnp._core"),
    ("numpy_os", ["numpy"], "import numpy as np\nnp.os"),
    ("pandas_read_pickle", ["pandas"], "import pandas as pd\npd.read_pickle('x.pkl')"),
    (
        "pandas_to_pickle",
        ["pandas"],
        "import pandas as pd\npd.DataFrame({'a': [1]}).to_pickle('/tmp/smol_pwned_marker')",
    ),
    ("pandas_io_pickle", ["pandas"], "import pandas as pd\npd.io.pickle"),
    ("pandas_read_csv_host_file", ["pandas"], "import pandas as pd\npd.read_csv('/etc/passwd')"),
    (
        "pandas_to_csv_outside",
        ["pandas"],
        "import pandas as pd\npd.DataFrame({'a': [1]}).to_csv('/tmp/smol_pwned_marker')",
    ),
    ("pandas_eval", ["pandas"], "import pandas as pd\npd.eval('1+1')"),
    # --- format-string traversal --------------------------------------------------------------
    ("format_class", N, "'{0.__class__.__base__}'.format(1)"),
    ("format_globals", N, "def f(): pass\n'{0.__globals__}'.format(f)"),
    ("format_kw", N, "def f(): pass\n'{x.__globals__[__builtins__]}'.format(x=f)"),
    ("format_map_traversal", N, "def f(): pass\n'{f.__globals__}'.format_map({'f': f})"),
    ("str_format_unbound", N, "str.format('{0.__class__}', 1)"),
    ("format_private", N, "import random\n'{0._os}'.format(random)"),
    ("format_nested_spec", N, "'{0:{1.__class__}}'.format(1, 2)"),
    ("format_via_getattr", N, "getattr('{0.__class__}', 'format')(1)"),
    ("format_str_subclass", N, "class S(str): pass\nS('{0.__class__}').format(1)"),
    ("format_method_ref", N, "f = '{0.__class__}'.format\nf(1)"),
    # --- metaclass / class tricks -------------------------------------------------------------
    (
        "metaclass_getattribute",
        N,
        "class M(type):\n    pass\nclass A(metaclass=M): pass\nM.__getattribute__(A, '__bases__')",
    ),
    (
        "init_subclass_super",
        N,
        "class A:\n    def __init_subclass__(cls, **kw):\n        super().__init_subclass__(**kw)\n        cls.__mro__\nclass B(A): pass",
    ),
    ("type_three_arg_dunders", N, "X = type('X', (), {})\nX.__bases__"),
    ("class_getattr_leak", N, "class A:\n    def __getattr__(self, n):\n        return n\nA().__globals__"),
    ("descriptor_objclass", N, "str.join.__objclass__"),
    ("slot_wrapper_self", N, "(1).__add__.__self__"),
    ("exception_context", N, "try:\n    1/0\nexcept Exception as e:\n    e.__context__"),
    ("exception_traceback_attr", N, "try:\n    1/0\nexcept Exception as e:\n    e.__traceback__"),
    # --- process and OS attacks (need a module the user granted) ------------------------------
    (
        "subprocess_when_authorized",
        ["subprocess"],
        "import subprocess\nsubprocess.run(['touch', '/tmp/smol_pwned_marker'])",
    ),
    (
        "socket_when_authorized",
        ["socket"],
        "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=1)",
    ),
    (
        "ctypes_when_authorized",
        ["ctypes"],
        "import ctypes\nctypes.CDLL(None).system(b'touch /tmp/smol_pwned_marker')",
    ),
    (
        "pickle_loads_when_authorized",
        ["pickle"],
        "import pickle\npickle.loads(b\"cos\\nsystem\\n(S'touch /tmp/smol_pwned_marker'\\ntR.\")",
    ),
    (
        "marshal_when_authorized",
        ["marshal", "types"],
        "import marshal, types\ntypes.FunctionType(marshal.loads(b''), {})",
    ),
    ("gc_objects_when_authorized", ["gc"], "import gc\ngc.get_objects()"),
    ("gc_referrers_when_authorized", ["gc"], "import gc\ngc.get_referrers(print)"),
    (
        "threading_fork_when_authorized",
        ["multiprocessing"],
        "import multiprocessing\nmultiprocessing.Process(target=print).start()",
    ),
    (
        "shutil_copy_when_authorized",
        ["shutil"],
        "import shutil\nshutil.copy('/etc/passwd', '/tmp/smol_pwned_marker')",
    ),
    (
        "pathlib_read_when_authorized",
        ["pathlib"],
        "import pathlib\npathlib.Path('/root/.bashrc').read_text()",
    ),
    (
        "pathlib_write_when_authorized",
        ["pathlib"],
        "import pathlib\npathlib.Path('/tmp/smol_pwned_marker').write_text('x')",
    ),
    ("proc_environ_read", ["pathlib"], "import pathlib\npathlib.Path('/proc/1/environ').read_bytes()"),
    (
        "signal_tamper",
        ["signal"],
        "import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\nsignal.alarm(1)\nimport time\ntime.sleep(30)",
    ),
    (
        "inspect_frames_when_authorized",
        ["inspect"],
        "import inspect\ninspect.currentframe().f_back.f_globals",
    ),
    (
        "asyncio_subprocess",
        N,
        "import asyncio\nasync def m():\n    loop = asyncio.get_running_loop()\nawait m()",
    ),
    (
        "asyncio_loop_subprocess",
        N,
        "import asyncio\nasync def m():\n    t = asyncio.current_task()\n    return await t.get_loop().subprocess_shell(lambda: None, 'touch /tmp/smol_pwned_marker')\nawait m()",
    ),
    (
        "asyncio_loop_connection",
        N,
        "import asyncio\nasync def m():\n    loop = asyncio.current_task().get_loop()\n    return await loop.create_connection(object, '1.1.1.1', 80)\nawait m()",
    ),
    ("asyncio_private", N, "import asyncio\nasyncio.events"),
    # --- resource bombs -----------------------------------------------------------------------
    ("memory_bomb_str", N, "'x' * (10 ** 11)"),
    ("memory_bomb_list", N, "[None] * (10 ** 10)"),
    ("memory_bomb_bytes", N, "bytearray(10 ** 11)"),
    ("recursion_bomb", N, "def f():\n    return f()\nf()"),
    ("int_str_conversion", N, "str(10 ** 10000)"),
    ("exit_builtin", N, "exit(0)"),
    ("quit_builtin", N, "quit()"),
    ("system_exit", N, "raise SystemExit(0)"),
    ("keyboard_interrupt", N, "raise KeyboardInterrupt"),
    ("generator_exit", N, "raise GeneratorExit"),
]

SLOW_CASES: list[tuple[str, list[str], str]] = [
    ("cpu_bomb", N, "while True:\n    pass"),
    ("pow_bomb", N, "10 ** 10 ** 10"),
    ("regex_bomb", N, "import re\nre.match('(x+x+)+y', 'x' * 100)"),
    ("sleep_forever", N, "import time\ntime.sleep(10 ** 8)"),
    ("fork_bomb", ["os"], "import os\nwhile True:\n    os.fork()"),
    (
        "thread_outlives_timeout",
        ["threading"],
        "import threading, time\nthreading.Thread(target=lambda: time.sleep(100)).start()\ntime.sleep(100)",
    ),
    (
        "except_swallow_loop",
        N,
        "while True:\n    try:\n        while True: pass\n    except BaseException:\n        pass",
    ),
    (
        "signal_ignore_then_hang",
        ["signal"],
        "import signal\nfor s in (signal.SIGTERM, signal.SIGINT):\n    signal.signal(s, signal.SIG_IGN)\nwhile True: pass",
    ),
]


def _run_case(executors, host_canary, authorized, code, timeout=5.0):
    ex = get_executor(executors, authorized, timeout)
    with pytest.raises(InterpreterError) as info:
        out = ex(code)
        pytest.fail(f"not stopped: output={out.output!r} logs={out.logs!r}")
    message = str(info.value)
    assert CANARY not in message and CANARY not in (info.value.logs or "")
    assert "ESCAPED" not in (info.value.logs or "")
    assert_host_untouched(host_canary)
    assert ex("sum(range(4))").output == 6
    return message


@pytest.mark.parametrize(("authorized", "code"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_attack_is_stopped(executors, host_canary, authorized, code):
    _run_case(executors, host_canary, authorized, code)


@pytest.mark.parametrize(("authorized", "code"), [c[1:] for c in SLOW_CASES], ids=[c[0] for c in SLOW_CASES])
def test_resource_attack_is_stopped(executors, host_canary, authorized, code):
    _run_case(executors, host_canary, authorized, code, timeout=1.0)


def test_case_ids_are_unique():
    ids = [c[0] for c in CASES + SLOW_CASES]
    assert len(ids) == len(set(ids)) and len(ids) >= 100


# --- reads that may succeed, but must not leak the host's secrets -----------------------------
NO_LEAK: list[tuple[str, list[str], str]] = [
    ("os_environ_is_clean", ["os"], "import os\ndict(os.environ)"),
    ("os_getenv", ["os"], "import os\nos.getenv('SMOL_TEST_API_KEY')"),
    ("scratch_listing", ["os"], "import os\nos.listdir('.')"),
    ("error_message_no_host_paths", N, "1/0"),
    (
        "proc_environ_glob",
        ["pathlib"],
        "import pathlib\n[p.read_bytes() for p in pathlib.Path('/proc').glob('*/environ')]",
    ),
]


@pytest.mark.parametrize(("authorized", "code"), [c[1:] for c in NO_LEAK], ids=[c[0] for c in NO_LEAK])
def test_no_secret_leaks(executors, host_canary, authorized, code):
    ex = get_executor(executors, authorized)
    try:
        out = ex(code)
        text = repr(out.output) + out.logs
    except InterpreterError as exc:
        text = str(exc)
    assert CANARY not in text
    assert_host_untouched(host_canary)


def test_stdout_tampering_does_not_break_protocol(executors, host_canary):
    ex = get_executor(executors, ["sys", "os"])
    out = ex(
        "import sys, os\nsys.stdout = None\nprint('hidden?')\nos.write(1, b'garbage') if hasattr(os, 'write') else 0\n5"
    )
    assert out.output == 5
    assert ex("1 + 1").output == 2


def test_scratch_writes_are_allowed(executors, host_canary):
    ex = get_executor(executors, ["os", "pathlib"])
    out = ex("import pathlib\np = pathlib.Path('notes.txt')\np.write_text('hello')\np.read_text()")
    assert out.output == "hello"


MATCH_ATTACKS = [
    (
        "match_kwd_globals",
        "def f(): pass\nmatch f:\n    case object(__globals__=g):\n        print('ESCAPED', g)",
    ),
    (
        "match_kwd_private",
        "import random\nmatch random:\n    case object(_os=o):\n        print('ESCAPED', o)",
    ),
    ("match_kwd_format", "match '{0.__class__}':\n    case str(format=f):\n        print('ESCAPED', f(1))"),
    (
        "match_args_dunder",
        "class A:\n    __match_args__ = ('__globals__',)\nclass M(type):\n    pass\nmatch A():\n    case A(g):\n        print('ESCAPED', g)",
    ),
    ("match_instancecheck_def", "class M(type):\n    def __instancecheck__(cls, x):\n        return True"),
    (
        "match_metaclass_match_args",
        "M = type('M', (type,), {'__match_args__': property(lambda c: ('__globals__',))})\nA = M('A', (), {})\ndef f(): pass\nmatch f:\n    case A(g):\n        print('ESCAPED', g)",
    ),
    ("match_args_store", "class A:\n    __match_args__ = ('x',)\nA.__match_args__ = ('__globals__',)"),
    (
        "type_setattr_match_args",
        "class A:\n    __match_args__ = ('x',)\ntype.__setattr__(A, '__match_args__', ('__globals__',))",
    ),
    ("object_setattr_class", "class A: pass\nobject.__setattr__(A(), '__class__', int)"),
    (
        "instancecheck_via_type",
        "M = type('M', (type,), {'__instancecheck__': lambda c, x: True, '__match_args__': ()})\nA = M('A', (), {'__match_args__': ('__code__',)})\ndef f(): pass\nmatch f:\n    case A(c):\n        print('ESCAPED', c)",
    ),
]


@pytest.mark.parametrize("code", [c[1] for c in MATCH_ATTACKS], ids=[c[0] for c in MATCH_ATTACKS])
def test_match_statement_attack_is_stopped(executors, host_canary, code):
    _run_case(executors, host_canary, N, code)
