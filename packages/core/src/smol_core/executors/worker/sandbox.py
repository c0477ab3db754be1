"""The process layer, applied by the worker to itself before it runs any code.

Why inside the worker: a spare worker is started before anyone knows the executor's settings, and the
kernel features used here (rlimits, `unshare`, mounts, Landlock, setresuid, seccomp) all act on the
calling process. Each step is tried, reported (name, active, detail) and never fatal: where the OS
offers nothing, the language layer, the audit hook and the parent's wall-clock kill still hold.
Order matters: namespaces and mounts need privileges that the uid change and seccomp then remove;
the uid change needs the scratch folder handed over first. Stdlib-only (ctypes is imported here,
before any code runs, and never reachable from it).

Each OS layer can be switched off by name through the worker's config (`os_layers_off`): the tests
run key attacks with every layer on and again with each one off, to show that the others hold.
"""

from __future__ import annotations

import ctypes
import os
import stat
import struct
import sys
from collections.abc import Iterable
from typing import Any

from . import seccomp

Report = tuple[str, bool, str]

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
PR_SET_NO_NEW_PRIVS = 38
PR_CAPBSET_DROP = 24
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REC, MS_PRIVATE = 0x4000, 0x40000
NOBODY = 65534
LAYERS = ("rlimits", "namespaces", "mount namespace", "landlock", "unprivileged user", "seccomp")


class Settings:
    """What the executor asked of the OS layer (from the `config` message), read by `apply_all`.

    Why module state: the worker's start-up sequence hands `apply_all` only the historical
    arguments; the worker records the rest here from the same config before calling it.
    """

    def __init__(self) -> None:
        self.layers_off: frozenset[str] = frozenset()
        self.scratch_limit_mb: int | None = 512
        self.mounted_scratch = False
        self.reports: list[Report] = []  # entries of other modules (lifetime.py), reported with ours

    def on(self, layer: str) -> bool:
        return layer not in self.layers_off


SETTINGS = Settings()


def configure(config: dict[str, Any]) -> None:
    """Record the config's OS-layer settings before `apply_all` runs."""
    SETTINGS.layers_off = frozenset(str(x) for x in config.get("os_layers_off") or ())
    limit = config.get("scratch_limit_mb", 512)
    SETTINGS.scratch_limit_mb = int(limit) if limit else None


_libc: ctypes.CDLL | None = None


def _lib() -> ctypes.CDLL:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc


def apply_rlimits(memory_limit_mb: int | None, file_size_mb: int = 256) -> Report:
    if SETTINGS.scratch_limit_mb:
        file_size_mb = max(1, min(file_size_mb, SETTINGS.scratch_limit_mb))
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


# --- namespaces and mounts ------------------------------------------------------------------------
def isolate_namespaces() -> tuple[list[Report], bool]:
    """New network, UTS and mount namespaces: privileged, else inside a new user namespace.

    Returns the reports and whether a private mount namespace was made (mounts need one).
    """
    names = ("network namespace", "uts namespace", "mount namespace")
    if not sys.platform.startswith("linux"):
        return [(n, False, "Linux only") for n in names], False
    libc = _lib()
    uid, gid = os.getuid(), os.getgid()
    all_flags = CLONE_NEWNET | CLONE_NEWUTS | CLONE_NEWNS
    for flags, how in (
        (all_flags, "privileged"),
        (CLONE_NEWUSER | all_flags, "user namespace"),
        (CLONE_NEWNET, "privileged"),
        (CLONE_NEWUSER | CLONE_NEWNET, "user namespace"),
    ):
        if libc.unshare(flags) != 0:
            continue
        if flags & CLONE_NEWUSER:
            _map_ids(uid, gid)
        reports: list[Report] = [("network namespace", True, f"no network interfaces ({how} unshare)")]
        if flags & CLONE_NEWUTS:
            name = b"smol-sandbox"
            libc.sethostname(name, len(name))
            reports.append(("uts namespace", True, "own host name, the host's is not visible"))
        else:
            reports.append(("uts namespace", False, "unshare refused"))
        if not flags & CLONE_NEWNS:
            reports.append(("mount namespace", False, "unshare refused"))
        return reports, bool(flags & CLONE_NEWNS)
    err = os.strerror(ctypes.get_errno())
    return [(n, False, f"unshare refused: {err}") for n in names], False


def _map_ids(uid: int, gid: int) -> None:
    """Inside a fresh user namespace: stay the same user (files created keep a valid owner)."""
    for path, text in (
        ("/proc/self/setgroups", "deny"),
        ("/proc/self/uid_map", f"{uid} {uid} 1"),
        ("/proc/self/gid_map", f"{gid} {gid} 1"),
    ):
        try:
            with open(path, "w") as handle:
                handle.write(text)
        except OSError:
            pass


def _mount(source: str, target: str, fstype: str | None, flags: int, data: str | None) -> str | None:
    """mount(2); None on success, else the error."""
    libc = _lib()
    ok = libc.mount(
        source.encode(),
        target.encode(),
        None if fstype is None else fstype.encode(),
        ctypes.c_ulong(flags),
        None if data is None else data.encode(),
    )
    return None if ok == 0 else os.strerror(ctypes.get_errno())


def private_mounts(scratch: str, owner: int | None) -> Report:
    """In our own mount namespace: a size-limited tmpfs as scratch, empty tmpfs over /run.

    Why: the scratch tmpfs bounds the files' total size (RLIMIT_FSIZE bounds each file only) and
    vanishes with the namespace when the worker ends, however it ends; /run (and /var/run, a link to
    it) holds the sockets of docker, D-Bus, systemd and ssh agents.
    """
    error = _mount("none", "/", None, MS_REC | MS_PRIVATE, None)
    if error:  # never mount anything that could propagate back to the host
        return ("mount namespace", False, f"could not make mounts private: {error}")
    done = []
    limit = SETTINGS.scratch_limit_mb
    if limit:
        options = f"size={limit}m,mode=0700" + (f",uid={owner},gid={owner}" if owner is not None else "")
        error = _mount("smol-scratch", scratch, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, options)
        if error is None:
            SETTINGS.mounted_scratch = True
            os.chdir(scratch)  # the old cwd is the folder under the mount
            done.append(f"scratch is a {limit} MiB tmpfs, gone with the worker")
        else:
            done.append(f"scratch tmpfs refused ({error})")
    hidden = []
    for path in ("/run", "/var/run"):
        if os.path.isdir(path) and not os.path.islink(path):
            flags = MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY
            if _mount("none", path, "tmpfs", flags, "size=16k,mode=0755") is None:
                hidden.append(path)
    if hidden:
        done.append(f"{' and '.join(hidden)} hidden (empty)")
    return (
        "mount namespace",
        SETTINGS.mounted_scratch and bool(hidden),
        "; ".join(done) or "nothing mounted",
    )


# --- user and capabilities -----------------------------------------------------------------------
def _others_can_read(path: str) -> bool:
    """True when a user that owns nothing can reach and read `path` (every parent searchable).

    Asked of the same read roots by every worker, twice (whether to drop to nobody, and the drop):
    the answer is kept per process, so the workers forked from the warm template take it from there
    (a realpath and a stat per parent folder of each of a dozen roots, about 0.6 ms of each worker's
    start). A root whose mode changes later is seen by the next template: until then, one that
    became unreadable makes the drop fail loudly (Python can no longer be read), and one that became
    readable leaves the worker as root without capabilities, as reported; never a weaker sandbox."""
    known = _READABLE_BY_OTHERS.get(path)
    if known is None:
        known = _READABLE_BY_OTHERS[path] = _check_others_can_read(path)
    return known


_READABLE_BY_OTHERS: dict[str, bool] = {}


def _check_others_can_read(path: str) -> bool:
    try:
        real = os.path.realpath(path)
        mode = os.stat(real).st_mode
        if not mode & stat.S_IROTH:
            return False
        parent = os.path.dirname(real)
        while True:
            if not os.stat(parent).st_mode & stat.S_IXOTH:
                return False
            if parent == "/":
                return True
            parent = os.path.dirname(parent)
    except OSError:
        return False


def drop_privileges(scratch: str, read_roots: Iterable[str]) -> Report:
    """Root host: become uid/gid 65534 when it can still read Python and write scratch; else shed
    every capability (root without capabilities cannot mount, trace, load modules or bypass modes)."""
    if os.geteuid() != 0:
        return ("unprivileged user", True, f"runs as uid {os.geteuid()}")
    unreadable = [r for r in read_roots if os.path.isdir(r) and not _others_can_read(r)]
    reason = ""
    if unreadable:
        reason = f"the Python installation ({unreadable[0]}) is not readable by uid {NOBODY}"
    else:
        try:
            if not SETTINGS.mounted_scratch:
                os.chown(scratch, NOBODY, NOBODY)
            os.setgroups([])
            os.setresgid(NOBODY, NOBODY, NOBODY)
            os.setresuid(NOBODY, NOBODY, NOBODY)
            return ("unprivileged user", True, f"runs as uid/gid {NOBODY} (nobody)")
        except OSError as exc:
            reason = f"setresuid refused: {exc}"
    dropped = _drop_capabilities()
    return (
        "unprivileged user",
        False,
        f"stays uid 0: {reason}" + ("; all capabilities dropped" if dropped else ""),
    )


def _drop_capabilities() -> bool:
    libc = _lib()
    cap = 0
    while cap < 64 and libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0:
        cap += 1
    header = struct.pack("<Ii", 0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = ctypes.create_string_buffer(24)  # two empty {effective, permitted, inheritable}
    libc.syscall.restype = ctypes.c_long
    return bool(libc.syscall(_CAPSET.get(os.uname().machine, -1), ctypes.c_char_p(header), data) == 0)


_CAPSET = {"x86_64": 126, "aarch64": 91}


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


def clean_environment_report(expected: Iterable[str]) -> Report:
    extra = sorted(set(os.environ) - set(expected))
    if extra:
        return ("clean environment", False, f"unexpected variables: {', '.join(extra[:5])}")
    return ("clean environment", True, f"{len(os.environ)} variables, none from the host")


def apply_all(
    memory_limit_mb: int | None, scratch: str, read_roots: list[str], os_sandbox: bool
) -> list[Report]:
    """Every OS layer, in the order their privileges allow; switched-off layers are reported as such."""
    on = SETTINGS.on
    reports = [apply_rlimits(memory_limit_mb) if on("rlimits") else ("rlimits", False, "switched off")]
    reports += SETTINGS.reports
    if not os_sandbox:
        return reports
    if on("namespaces"):
        made, mount_ns = isolate_namespaces()
        reports += [r for r in made if r[0] != "mount namespace" or not mount_ns]
        if mount_ns and on("mount namespace"):
            root_drops = os.geteuid() == 0 and on("unprivileged user") and all_readable_by_others(read_roots)
            reports.append(private_mounts(scratch, NOBODY if root_drops else None))
        elif mount_ns:
            reports.append(("mount namespace", False, "switched off"))
    else:
        reports.append(("namespaces", False, "switched off"))
    landlock = (
        apply_landlock(read_roots, [scratch]) if on("landlock") else ("landlock", False, "switched off")
    )
    reports.append(landlock)
    if on("unprivileged user"):
        reports.append(drop_privileges(scratch, read_roots))
    reports.append(seccomp.apply() if on("seccomp") else ("seccomp", False, "switched off"))
    return reports


def all_readable_by_others(roots: Iterable[str]) -> bool:
    return all([_others_can_read(r) for r in roots if os.path.isdir(r)])  # each asked: each kept
