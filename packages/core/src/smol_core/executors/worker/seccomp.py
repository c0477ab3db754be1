"""The worker's seccomp filter: the system calls code can never make, whatever it reaches in Python.

Why a kernel filter when the audit hook already refuses these operations: the hook sees what Python
announces; native code (an authorized extension, ctypes named by the user, a bug in a C module) makes
system calls directly. The filter is the last wall: no exec, no new processes, no sockets at all (the
worker's own channel is open before the filter; asyncio's self-pipe uses `socketpair`, which cannot
reach anything), no signals or queued signals to other processes, no namespaces, mounts, kernel keys,
io_uring (whose operations bypass seccomp), handle-based opens, ptrace or cross-process memory access,
and no other system-call ABI (i386 through `int 0x80`, x32 numbers) that would skip the table below.
Stdlib-only; applied last, after every step that needs these calls.
"""

from __future__ import annotations

import ctypes
import os
import platform
import struct
import sys

Report = tuple[str, bool, str]

CLONE_THREAD = 0x00010000
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
X32_SYSCALL_BIT = 0x40000000

_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}

# Denied outright (EPERM). Names missing on an architecture are simply absent from its table.
_DENIED = (
    "execve",
    "execveat",
    "fork",
    "vfork",
    "ptrace",
    "unshare",
    "setns",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "bpf",
    "perf_event_open",
    "keyctl",
    "add_key",
    "request_key",
    "init_module",
    "finit_module",
    "delete_module",
    "reboot",
    "kexec_load",
    "kexec_file_load",
    "process_vm_readv",
    "process_vm_writev",
    "userfaultfd",
    "pidfd_open",
    "pidfd_send_signal",
    "pidfd_getfd",
    "tkill",
    "rt_sigqueueinfo",
    "rt_tgsigqueueinfo",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "open_by_handle_at",
    "name_to_handle_at",
    "setuid",
    "setgid",
    "setreuid",
    "setregid",
    "setresuid",
    "setresgid",
    "setgroups",
    "setfsuid",
    "setfsgid",
    "capset",
    "iopl",
    "ioperm",
    "personality",
    "connect",
    "bind",
    "listen",
)

_NR: dict[str, dict[str, int]] = {
    "x86_64": {
        "execve": 59,
        "execveat": 322,
        "fork": 57,
        "vfork": 58,
        "clone": 56,
        "clone3": 435,
        "socket": 41,
        "connect": 42,
        "bind": 49,
        "listen": 50,
        "ptrace": 101,
        "kill": 62,
        "tkill": 200,
        "tgkill": 234,
        "rt_sigqueueinfo": 129,
        "rt_tgsigqueueinfo": 297,
        "unshare": 272,
        "setns": 308,
        "mount": 165,
        "umount2": 166,
        "pivot_root": 155,
        "chroot": 161,
        "open_tree": 428,
        "move_mount": 429,
        "fsopen": 430,
        "fsconfig": 431,
        "fsmount": 432,
        "fspick": 433,
        "mount_setattr": 442,
        "bpf": 321,
        "perf_event_open": 298,
        "keyctl": 250,
        "add_key": 248,
        "request_key": 249,
        "init_module": 175,
        "finit_module": 313,
        "delete_module": 176,
        "reboot": 169,
        "kexec_load": 246,
        "kexec_file_load": 320,
        "process_vm_readv": 310,
        "process_vm_writev": 311,
        "userfaultfd": 323,
        "pidfd_open": 434,
        "pidfd_send_signal": 424,
        "pidfd_getfd": 438,
        "io_uring_setup": 425,
        "io_uring_enter": 426,
        "io_uring_register": 427,
        "open_by_handle_at": 304,
        "name_to_handle_at": 303,
        "setuid": 105,
        "setgid": 106,
        "setreuid": 113,
        "setregid": 114,
        "setresuid": 117,
        "setresgid": 119,
        "setgroups": 116,
        "setfsuid": 122,
        "setfsgid": 123,
        "capset": 126,
        "iopl": 172,
        "ioperm": 173,
        "personality": 135,
    },
    "aarch64": {
        "execve": 221,
        "execveat": 281,
        "clone": 220,
        "clone3": 435,
        "socket": 198,
        "bind": 200,
        "listen": 201,
        "connect": 203,
        "ptrace": 117,
        "kill": 129,
        "tkill": 130,
        "tgkill": 131,
        "rt_sigqueueinfo": 138,
        "rt_tgsigqueueinfo": 240,
        "unshare": 97,
        "setns": 268,
        "mount": 40,
        "umount2": 39,
        "pivot_root": 41,
        "chroot": 51,
        "open_tree": 428,
        "move_mount": 429,
        "fsopen": 430,
        "fsconfig": 431,
        "fsmount": 432,
        "fspick": 433,
        "mount_setattr": 442,
        "bpf": 280,
        "perf_event_open": 241,
        "keyctl": 219,
        "add_key": 217,
        "request_key": 218,
        "init_module": 105,
        "finit_module": 273,
        "delete_module": 106,
        "reboot": 142,
        "kexec_load": 104,
        "kexec_file_load": 294,
        "process_vm_readv": 270,
        "process_vm_writev": 271,
        "userfaultfd": 282,
        "pidfd_open": 434,
        "pidfd_send_signal": 424,
        "pidfd_getfd": 438,
        "io_uring_setup": 425,
        "io_uring_enter": 426,
        "io_uring_register": 427,
        "open_by_handle_at": 265,
        "name_to_handle_at": 264,
        "setuid": 146,
        "setgid": 144,
        "setreuid": 145,
        "setregid": 143,
        "setresuid": 147,
        "setresgid": 149,
        "setgroups": 159,
        "setfsuid": 151,
        "setfsgid": 152,
        "capset": 91,
        "personality": 92,
    },
}
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
EPERM, ENOSYS, EACCES = 1, 38, 13
_LD, _JEQ, _JSET, _RET = 0x20, 0x15, 0x45, 0x06  # BPF_LD|W|ABS, JMP|JEQ|K, JMP|JSET|K, RET|K
_OFF_NR, _OFF_ARCH, _OFF_ARG0 = 0, 4, 16


def _stmt(code: int, k: int) -> bytes:
    return struct.pack("<HBBI", code, 0, 0, k & 0xFFFFFFFF)


def _jump(code: int, k: int, jt: int, jf: int) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k & 0xFFFFFFFF)


def _only_for_own_pid(nr: int, pid: int) -> list[bytes]:
    """`kill`/`tgkill` pass when their first argument is this process, fail with EPERM otherwise."""
    return [
        _jump(_JEQ, nr, 0, 4),
        _stmt(_LD, _OFF_ARG0),
        _jump(_JEQ, pid, 0, 1),
        _stmt(_RET, _RET_ALLOW),
        _stmt(_RET, _RET_ERRNO | EPERM),
    ]


def program(arch: str, pid: int) -> list[bytes]:
    """The BPF program for `arch`; `pid` is the only process signals may target."""
    nr = _NR[arch]
    prog = [
        _stmt(_LD, _OFF_ARCH),
        # another ABI (i386 via int 0x80 on x86_64) has another table: refuse it all
        _jump(_JEQ, _ARCH[arch], 1, 0),
        _stmt(_RET, _RET_ERRNO | EPERM),
        _stmt(_LD, _OFF_NR),
    ]
    if arch == "x86_64":  # x32 numbers alias the 64-bit calls under another number
        prog += [_jump(_JSET, X32_SYSCALL_BIT, 0, 1), _stmt(_RET, _RET_ERRNO | EPERM)]
    for name in _DENIED:
        if name in nr:
            prog += [_jump(_JEQ, nr[name], 0, 1), _stmt(_RET, _RET_ERRNO | EPERM)]
    # clone3 hides its flags in memory: make libc fall back to clone, whose flags we can read
    prog += [_jump(_JEQ, nr["clone3"], 0, 1), _stmt(_RET, _RET_ERRNO | ENOSYS)]
    # clone: threads only (CLONE_THREAD set), no new processes
    prog += [
        _jump(_JEQ, nr["clone"], 0, 4),
        _stmt(_LD, _OFF_ARG0),
        _jump(_JSET, CLONE_THREAD, 0, 1),
        _stmt(_RET, _RET_ALLOW),
        _stmt(_RET, _RET_ERRNO | EPERM),
    ]
    # socket: none at all once the worker runs (its channel is already open)
    prog += [_jump(_JEQ, nr["socket"], 0, 1), _stmt(_RET, _RET_ERRNO | EACCES)]
    prog += _only_for_own_pid(nr["kill"], pid)
    prog += _only_for_own_pid(nr["tgkill"], pid)  # glibc's raise() and abort() use it on ourselves
    prog.append(_stmt(_RET, _RET_ALLOW))
    return prog


class _SockFprog(ctypes.Structure):
    """The kernel's `struct sock_fprog`: made once per process (a workers' template), not per worker."""

    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


_LIBC: list[ctypes.CDLL] = []


def _libc() -> ctypes.CDLL:
    """The C library, opened once per process (workers forked from the template find it open)."""
    if not _LIBC:
        _LIBC.append(ctypes.CDLL(None, use_errno=True))
    return _LIBC[0]


def apply() -> Report:
    """Install the filter on this process (and every thread it starts later)."""
    arch = platform.machine()
    if not sys.platform.startswith("linux") or arch not in _NR:
        return ("seccomp", False, f"not supported on {sys.platform}/{arch}")
    libc = _libc()
    prog = program(arch, os.getpid())
    code = b"".join(prog)
    filt = ctypes.create_string_buffer(code, len(code))
    fprog = _SockFprog(len(prog), ctypes.cast(filt, ctypes.c_void_p))
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return ("seccomp", False, "could not set no_new_privs")
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        return ("seccomp", False, f"filter refused: {os.strerror(ctypes.get_errno())}")
    return (
        "seccomp",
        True,
        "no exec, no fork, no sockets (Unix ones included), no signals out (thread-directed and "
        "queued too), no ptrace/process_vm, no mount/namespaces/keys/bpf/io_uring/handle opens, "
        "no uid changes, other ABIs (i386, x32) refused",
    )
