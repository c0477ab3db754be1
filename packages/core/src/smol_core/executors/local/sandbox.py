"""The process layer, applied by the worker to itself before it runs any code.

Why inside the worker: a spare worker is started before anyone knows the executor's settings, and the
kernel features used here (rlimits, `unshare`, Landlock, seccomp) all act on the calling process.
Each step is tried, reported (name, active, detail) and never fatal: where the OS offers nothing, the
language layer and the parent's wall-clock kill still hold. Order matters: the network namespace
needs privileges that seccomp then removes. Stdlib-only (ctypes is imported here, before any code
runs, and never reachable from it).
"""

from __future__ import annotations

import ctypes
import os
import platform
import struct
import sys
from collections.abc import Iterable

Report = tuple[str, bool, str]

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
CLONE_THREAD = 0x00010000
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2

_libc: ctypes.CDLL | None = None


def _lib() -> ctypes.CDLL:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc


def apply_rlimits(memory_limit_mb: int | None, file_size_mb: int = 256) -> Report:
    try:
        import resource
        import signal

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an oversized write fails instead of killing us
        done = []
        if memory_limit_mb:
            limit = memory_limit_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            done.append(f"address space {memory_limit_mb} MiB")
        fsize = file_size_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        done += [f"file size {file_size_mb} MiB", "no core dumps"]
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
            done.append("256 open files")
        except (ValueError, OSError):
            pass
        return ("rlimits", True, ", ".join(done))
    except Exception as exc:  # pragma: no cover - platform without resource
        return ("rlimits", False, f"unavailable: {exc}")


def isolate_network() -> Report:
    if not sys.platform.startswith("linux"):
        return ("network namespace", False, "Linux only")
    libc = _lib()
    for flags, how in ((CLONE_NEWNET, "privileged"), (CLONE_NEWUSER | CLONE_NEWNET, "user namespace")):
        if libc.unshare(flags) == 0:
            return ("network namespace", True, f"no network interfaces ({how} unshare)")
    err = ctypes.get_errno()
    return ("network namespace", False, f"unshare refused: {os.strerror(err)}")


# --- Landlock ------------------------------------------------------------------------------------
_LL_CREATE, _LL_ADD, _LL_RESTRICT = 444, 445, 446
_LL_FILE_RIGHTS = (1 << 0) | (1 << 1) | (1 << 2)  # execute, write_file, read_file (+ truncate, ioctl below)
_READ = (1 << 0) | (1 << 2) | (1 << 3)  # execute, read_file, read_dir


def _landlock_fs_mask(abi: int) -> int:
    mask = (1 << 13) - 1
    if abi >= 2:
        mask |= 1 << 13  # refer
    if abi >= 3:
        mask |= 1 << 14  # truncate
    if abi >= 5:
        mask |= 1 << 15  # ioctl_dev
    return mask


def apply_landlock(read_roots: Iterable[str], write_roots: Iterable[str]) -> Report:
    """Reads only below the Python installation and scratch; writes only in scratch; no TCP; no signals out."""
    if not sys.platform.startswith("linux"):
        return ("landlock", False, "Linux only")
    libc = _lib()
    libc.syscall.restype = ctypes.c_long
    abi = libc.syscall(_LL_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    if abi < 1:
        return ("landlock", False, f"not supported by this kernel ({os.strerror(ctypes.get_errno())})")
    fs_mask = _landlock_fs_mask(abi)
    net_mask = 0b11 if abi >= 4 else 0
    scoped = 0b11 if abi >= 6 else 0
    attr = struct.pack("<QQQ", fs_mask, net_mask, scoped)
    size = 24 if abi >= 6 else (16 if abi >= 4 else 8)
    buf = ctypes.create_string_buffer(attr[:size], size)
    fd = libc.syscall(_LL_CREATE, buf, ctypes.c_size_t(size), ctypes.c_uint32(0))
    if fd < 0:
        return ("landlock", False, f"ruleset refused: {os.strerror(ctypes.get_errno())}")
    file_rights = _LL_FILE_RIGHTS | ((1 << 14) if abi >= 3 else 0)
    try:
        rules = [(p, _READ) for p in read_roots] + [(p, fs_mask) for p in write_roots]
        rules += [
            ("/dev/null", (1 << 1) | (1 << 2)),
            ("/dev/urandom", 1 << 2),
            ("/etc/localtime", 1 << 2),
            ("/etc/ld.so.cache", 1 << 2),
            ("/proc/cpuinfo", 1 << 2),
            ("/proc/meminfo", 1 << 2),
        ]
        added = 0
        for path, rights in rules:
            try:
                pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                if not os.path.isdir(path):
                    rights &= file_rights
                rule = ctypes.create_string_buffer(struct.pack("<Qi", rights, pfd), 12)
                if libc.syscall(_LL_ADD, ctypes.c_int(fd), ctypes.c_int(1), rule, ctypes.c_uint32(0)) == 0:
                    added += 1
            finally:
                os.close(pfd)
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return ("landlock", False, "could not set no_new_privs")
        if libc.syscall(_LL_RESTRICT, ctypes.c_int(fd), ctypes.c_uint32(0)) != 0:
            return ("landlock", False, f"restrict_self refused: {os.strerror(ctypes.get_errno())}")
    finally:
        os.close(fd)
    extras = (", TCP bind/connect denied" if net_mask else "") + (
        ", signals to outside processes denied" if scoped else ""
    )
    return ("landlock", True, f"ABI {abi}: reads limited to {added} paths, writes to scratch only{extras}")


# --- seccomp -------------------------------------------------------------------------------------
_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
_NR = {
    "x86_64": {
        "execve": 59,
        "execveat": 322,
        "fork": 57,
        "vfork": 58,
        "clone": 56,
        "clone3": 435,
        "socket": 41,
        "ptrace": 101,
        "kill": 62,
        "unshare": 272,
        "setns": 308,
        "mount": 165,
        "umount2": 166,
        "pivot_root": 155,
        "chroot": 161,
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
        "process_vm_readv": 310,
        "process_vm_writev": 311,
        "userfaultfd": 323,
        "pidfd_open": 434,
        "pidfd_send_signal": 424,
        "pidfd_getfd": 438,
        "setuid": 105,
        "setgid": 106,
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
        "ptrace": 117,
        "kill": 129,
        "unshare": 97,
        "setns": 268,
        "mount": 40,
        "umount2": 39,
        "pivot_root": 41,
        "chroot": 51,
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
        "process_vm_readv": 270,
        "process_vm_writev": 271,
        "userfaultfd": 282,
        "pidfd_open": 434,
        "pidfd_send_signal": 424,
        "pidfd_getfd": 438,
        "setuid": 146,
        "setgid": 144,
        "personality": 92,
    },
}
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
EPERM, ENOSYS, EACCES = 1, 38, 13


def _stmt(code: int, k: int) -> bytes:
    return struct.pack("<HBBI", code, 0, 0, k & 0xFFFFFFFF)


def _jump(code: int, k: int, jt: int, jf: int) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k & 0xFFFFFFFF)


def _seccomp_program(arch: str) -> list[bytes]:
    LD, JEQ, JSET, RET = 0x20, 0x15, 0x45, 0x06  # BPF_LD|W|ABS, JMP|JEQ|K, JMP|JSET|K, RET|K
    nr = _NR[arch]
    deny = [n for n in nr if n not in ("clone", "clone3", "socket", "kill")]
    pid = os.getpid()
    prog = [_stmt(LD, 4), _jump(JEQ, _ARCH[arch], 1, 0), _stmt(RET, _RET_ALLOW), _stmt(LD, 0)]
    for name in deny:
        prog += [_jump(JEQ, nr[name], 0, 1), _stmt(RET, _RET_ERRNO | EPERM)]
    # clone3 hides its flags in memory: make libc fall back to clone, whose flags we can read
    prog += [_jump(JEQ, nr["clone3"], 0, 1), _stmt(RET, _RET_ERRNO | ENOSYS)]
    # clone: threads only (CLONE_THREAD set), no new processes
    prog += [
        _jump(JEQ, nr["clone"], 0, 4),
        _stmt(LD, 16),
        _jump(JSET, CLONE_THREAD, 0, 1),
        _stmt(RET, _RET_ALLOW),
        _stmt(RET, _RET_ERRNO | EPERM),
    ]
    # socket: AF_UNIX only
    prog += [
        _jump(JEQ, nr["socket"], 0, 4),
        _stmt(LD, 16),
        _jump(JEQ, 1, 0, 1),
        _stmt(RET, _RET_ALLOW),
        _stmt(RET, _RET_ERRNO | EACCES),
    ]
    # kill: only ourselves
    prog += [
        _jump(JEQ, nr["kill"], 0, 4),
        _stmt(LD, 16),
        _jump(JEQ, pid, 0, 1),
        _stmt(RET, _RET_ALLOW),
        _stmt(RET, _RET_ERRNO | EPERM),
    ]
    prog.append(_stmt(RET, _RET_ALLOW))
    return prog


def apply_seccomp() -> Report:
    """No exec, no new processes, no network sockets, no ptrace/mount/namespaces, no signals out."""
    arch = platform.machine()
    if not sys.platform.startswith("linux") or arch not in _NR:
        return ("seccomp", False, f"not supported on {sys.platform}/{arch}")
    libc = _lib()
    prog = _seccomp_program(arch)
    code = b"".join(prog)
    filt = ctypes.create_string_buffer(code, len(code))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(len(prog), ctypes.cast(filt, ctypes.c_void_p))
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return ("seccomp", False, "could not set no_new_privs")
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        return ("seccomp", False, f"filter refused: {os.strerror(ctypes.get_errno())}")
    return (
        "seccomp",
        True,
        "no exec, no fork, no network sockets, no ptrace/mount/namespaces, no signals out",
    )


def clean_environment_report(expected: Iterable[str]) -> Report:
    extra = sorted(set(os.environ) - set(expected))
    if extra:
        return ("clean environment", False, f"unexpected variables: {', '.join(extra[:5])}")
    return ("clean environment", True, f"{len(os.environ)} variables, none from the host")


def apply_all(
    memory_limit_mb: int | None, scratch: str, read_roots: list[str], os_sandbox: bool
) -> list[Report]:
    reports = [apply_rlimits(memory_limit_mb)]
    if os_sandbox:
        reports.append(isolate_network())
        reports.append(apply_landlock(read_roots, [scratch]))
        reports.append(apply_seccomp())
    return reports
