"""What `additional_authorized_imports=["*"]` grants of the standard library: reviewed modules only.

Why a list that grants rather than one that refuses: the audit hook sees the files Python opens,
but not those a C module opens itself (`readline.write_history_file`, `spwd.getspall` reading
/etc/shadow, `curses.setupterm` reading terminfo, `syslog.syslog` writing to /dev/log, libuuid's
clock file); against those only Landlock stands, where the kernel has it. So `"*"` grants a
standard-library module only after a review found it computes, or touches files solely through
Python's audited `open` (private C accelerators included: `module_policy.SAFE_PRIVATE_MODULES` passes the
private-module rule, and this list decides what `"*"` gives of them). Every other one, a module a new Python version adds included, is refused
until a person reviews it, and is available when named exactly. `tests/security/test_star_review.py`
walks `sys.stdlib_module_names` and fails on a module in neither list, so a review cannot be skipped.

Third-party packages are granted by `"*"` as in smolagents (what is installed cannot be listed),
except the known ones of `STAR_REFUSED_PACKAGES` and smol's own plugins; the modules of
`module_policy.DANGEROUS_MODULES` and private modules have rules of their own, applied before this one.
"""

from __future__ import annotations

import sys

from .module_policy import SAFE_PRIVATE_MODULES

__all__ = ["STAR_REFUSED_PACKAGES", "STAR_REFUSED_STDLIB_MODULES", "STAR_STDLIB_MODULES", "star_refusal"]

# Reviewed and granted by "*": computation, data formats, text; file access (if any) only through
# Python's `open`, which the audit hook and the OS layer both see.
STAR_STDLIB_MODULES = (SAFE_PRIVATE_MODULES - {"_uuid"}) | frozenset(
    {
        # the private C accelerators public modules import themselves and that only compute come from
        # module_policy.SAFE_PRIVATE_MODULES; `_uuid` passes the private-module rule (uuid imports it) but
        # calls libuuid, which opens its clock file and a socket in C: "*" does not give it
        # public modules
        "__future__",
        "asyncio",  # always a reduced view (specials.py), granted or not
        "abc",
        "aifc",
        "argparse",
        "array",
        "ast",
        "audioop",
        "base64",
        "binascii",
        "bisect",
        "bz2",
        "calendar",
        "chunk",
        "cmath",
        "codecs",
        "collections",
        "colorsys",
        "configparser",
        "contextlib",
        "contextvars",
        "copy",
        "csv",
        "dataclasses",
        "datetime",
        "decimal",
        "difflib",
        "email",
        "encodings",
        "enum",
        "errno",
        "fnmatch",
        "fractions",
        "functools",
        "getopt",
        "gettext",
        "graphlib",
        "gzip",
        "hashlib",
        "heapq",
        "hmac",
        "html",
        "imghdr",
        "ipaddress",
        "itertools",
        "json",
        "keyword",
        "locale",
        "logging",
        "lzma",
        "math",
        "mimetypes",
        "numbers",
        "operator",
        "optparse",
        "plistlib",
        "pprint",
        "pyexpat",
        "queue",
        "quopri",
        "random",
        "re",
        "reprlib",
        "sched",
        "secrets",
        "shlex",
        "sndhdr",
        "sre_compile",
        "sre_constants",
        "sre_parse",
        "stat",
        "statistics",
        "string",
        "stringprep",
        "struct",
        "sunau",
        "textwrap",
        "this",
        "time",
        "token",
        "tokenize",
        "tomllib",
        "traceback",
        "types",
        "typing",
        "unicodedata",
        "uu",
        "warnings",
        "wave",
        "weakref",
        "xdrlib",
        "xml",
        "zlib",
        "zoneinfo",
    }
)

# Reviewed and refused by "*" (named exactly, each is granted): why, per module.
STAR_REFUSED_STDLIB_MODULES: dict[str, str] = {
    # C code that opens files, devices or sockets itself, out of the audit hook's sight
    "readline": "its C code reads and writes history and init files",
    "spwd": "its C code reads the shadow password database",
    "pwd": "its C code reads the user database",
    "grp": "its C code reads the group database",
    "curses": "its C code reads terminfo files and writes to the terminal",
    "syslog": "its C code writes to the system log socket",
    "nis": "its C code queries NIS servers",
    "ossaudiodev": "its C code opens audio devices",
    "crypt": "its C code calls the system's crypt library (and the module is deprecated)",
    "uuid": "uuid1() calls libuuid, whose C code opens a clock file and a socket itself",
    "_uuid": "its C code (libuuid) opens a clock file and a socket itself",
    # the process's own terminal, input and environment
    "getpass": "it reads the terminal and the user database",
    "cmd": "it reads standard input (the worker's channel) and loads readline",
    "cgi": "it reads standard input (the worker's channel) and the environment",
    "cgitb": "it writes reports to files and standard output",
    "rlcompleter": "it evaluates expressions and loads readline",
    "netrc": "it reads credentials files",
    # the file system as such: these stat and list paths the code names (os.stat has no audit event)
    "filecmp": "it compares files and directories by path (stat, listdir)",
    "mailbox": "it walks and creates mail folders by path",
    # networking and commands
    "asyncore": "it drives sockets",
    "asynchat": "it drives sockets",
    "smtpd": "it runs a mail server",
    "nntplib": "it opens network connections",
    "wsgiref": "it runs web servers",
    "pipes": "it runs shell commands",
    "mailcap": "it builds shell commands from mailcap files",
    # code, bytecode and modules: tools of the interpreter rather than of computation
    "compileall": "it compiles and writes bytecode files",
    "py_compile": "it compiles and writes bytecode files",
    "zipapp": "it writes executable archives",
    "modulefinder": "it loads and inspects modules' bytecode",
    "pyclbr": "it imports packages to read their source",
    "symtable": "it exposes the compiler's symbol tables",
    "opcode": "it exposes the interpreter's bytecode tables",
    "dis": "it hands out code objects (`Bytecode.codeobj`)",
    "pstats": "it loads marshal data from files",
    "pickletools": "it works on pickles, which are refused",
    "tabnanny": "it reads source files to check them",
    "linecache": "it reads any source file by name and caches it",
    "pydoc_data": "documentation data for pydoc, which is refused",
    # other platforms
    "msilib": "Windows installer databases",
    "msvcrt": "Windows C runtime (files, consoles)",
    "winreg": "the Windows registry",
    "winsound": "Windows sound devices",
    "nturl2path": "Windows paths",
}

# Third-party packages "*" does not grant either (reviewed and refused: their native code opens
# files, sockets or processes itself, they load pickles, or they drive the host): named exactly,
# each is granted. A package not listed is granted, as in smolagents: what is installed cannot be
# listed in advance, so this list holds the known ones.
STAR_REFUSED_PACKAGES: dict[str, str] = {
    "psutil": "its C code inspects and changes other processes (priorities, limits, affinity)",
    "pexpect": "it runs programs on a terminal",
    "ptyprocess": "it runs programs on a terminal",
    "docker": "it drives the Docker daemon (root on the host)",
    "dotenv": "it finds and reads .env files of credentials",
    "tokenizers": "its native code reads files by path",
    "hf_xet": "its native code reads, writes and uploads files",
    "xllamacpp": "its native code loads files by path and serves on sockets",
    "llama_cpp": "its native code loads files by path",
    "torch": "torch.load unpickles and torch.from_file reads files in native code",
    "dill": "it unpickles (code runs outside the guards)",
    "cloudpickle": "it unpickles (code runs outside the guards)",
    "joblib": "it unpickles (code runs outside the guards)",
    "lxml": "libxml2 opens files and URLs itself",
    "pyarrow": "its native code reads and writes files and networks",
    "duckdb": "its native code reads and writes files",
    "polars": "its native code reads and writes files",
    "h5py": "HDF5 opens files itself",
    "tables": "HDF5 opens files itself",
    "netCDF4": "its native code opens files and URLs",
    "cv2": "OpenCV reads and writes files and devices itself",
    "soundfile": "libsndfile opens files itself",
    "sqlalchemy": "it opens databases (SQLite files in native code)",
    "paramiko": "it opens network connections and runs remote commands",
    "hatchling": "it builds packages (runs build hooks)",
    "e2b": "it starts remote sandboxes with the user's credentials",
    "e2b_code_interpreter": "it starts remote sandboxes with the user's credentials",
}
_SMOL_PACKAGE_PREFIX = "smol_"  # smol's own plugins hold the host's machinery (executors, servers)

_REFUSAL = (
    "'{top}' is a standard-library module that \"*\" does not grant ({why}); name it exactly in "
    "additional_authorized_imports if the code needs it"
)

_PACKAGE_REFUSAL = (
    "'{top}' is a package that \"*\" does not grant ({why}); name it exactly in "
    "additional_authorized_imports if the code needs it"
)


def star_refusal(name: str) -> str | None:
    """Why `"*"` does not grant module `name`, or None if it does (the module of its top-level
    package decides: `xml.etree.ElementTree` goes with `xml`). Only public names come here."""
    top = name.split(".")[0]
    if top in STAR_STDLIB_MODULES:
        return None
    why = STAR_REFUSED_STDLIB_MODULES.get(top)
    if why is not None:
        return _REFUSAL.format(top=top, why=why)
    if top in sys.stdlib_module_names:
        return _REFUSAL.format(top=top, why="it has not been reviewed for the sandbox")
    why = STAR_REFUSED_PACKAGES.get(top)
    if why is None and top.startswith(_SMOL_PACKAGE_PREFIX):
        why = "a smol plugin holds the host's machinery"
    if why is not None:
        return _PACKAGE_REFUSAL.format(top=top, why=why)
    return None
