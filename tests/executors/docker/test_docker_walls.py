"""The container's walls hold on their own: attack code runs with the language layer switched off
(`unguarded_for_tests=True`, a bare exec loop) and meets the network, file system, user, capability
and limit walls directly."""

from __future__ import annotations

import os

import pytest

from smol_core.executors.base import InterpreterError

CANARY = "smol-docker-wall-canary-93b2"


@pytest.fixture
def raw(make_docker):
    return make_docker(unguarded_for_tests=True, mem_limit="256m", pids_limit=64)


def test_the_language_layer_is_really_off(raw):
    assert raw("import os, subprocess, ctypes\nresult = os.getpid()").output > 0


def test_no_network(raw):
    out = raw(
        "import os, socket\n"
        "result = {'ifaces': sorted(os.listdir('/sys/class/net')), 'errors': []}\n"
        "for host in [('1.1.1.1', 53), ('10.0.0.1', 80), ('host.docker.internal', 80)]:\n"
        "    try:\n"
        "        socket.create_connection(host, timeout=2)\n"
        "        result['errors'].append('CONNECTED')\n"
        "    except OSError as e:\n"
        "        result['errors'].append(type(e).__name__)\n"
    ).output
    assert out["ifaces"] == ["lo"]
    assert "CONNECTED" not in out["errors"]


def test_root_is_read_only_and_scratch_is_not(raw):
    out = raw(
        "import errno\n"
        "result = {}\n"
        "for path in ['/etc/passwd', '/usr/bin/evil', '/evil', '/usr/lib/python3.11/os.py']:\n"
        "    try:\n"
        "        open(path, 'a').close()\n"
        "        result[path] = 'WROTE'\n"
        "    except OSError as e:\n"
        "        result[path] = errno.errorcode[e.errno]\n"
        "open('/tmp/scratch-ok', 'w').write('fine')\n"
        "result['tmp'] = open('/tmp/scratch-ok').read()\n"
    ).output
    assert out.pop("tmp") == "fine"
    assert "WROTE" not in out.values()
    assert set(out.values()) <= {"EROFS", "EACCES"}
    assert out["/evil"] == "EROFS"


def test_scratch_is_not_executable(raw):
    out = raw(
        "import os, shutil, subprocess\n"
        "shutil.copy('/bin/true', '/tmp/t')\nos.chmod('/tmp/t', 0o755)\n"
        "try:\n    subprocess.run(['/tmp/t'])\n    result = 'RAN'\nexcept OSError as e:\n    result = e.errno\n"
    ).output
    assert out != "RAN"


def test_user_is_unprivileged_without_capabilities(raw):
    out = raw(
        "import os\n"
        "status = dict(l.split(':\\t', 1) for l in open('/proc/self/status').read().splitlines() if ':\\t' in l)\n"
        "result = {'uid': os.getuid(), 'euid': os.geteuid(), 'gid': os.getgid(),\n"
        "          'eff': status['CapEff'], 'prm': status['CapPrm'], 'bnd': status['CapBnd'],\n"
        "          'nnp': status['NoNewPrivs'].strip()}\n"
    ).output
    assert (out["uid"], out["euid"], out["gid"]) == (65534, 65534, 65534)
    assert int(out["eff"], 16) == int(out["prm"], 16) == int(out["bnd"], 16) == 0
    assert out["nnp"] == "1"


def test_privileged_operations_fail(raw):
    out = raw(
        "import os\nresult = []\n"
        "for attempt in (lambda: os.setuid(0), lambda: os.chroot('/tmp'), lambda: os.mknod('/tmp/dev', 0o600 | 0o020000, os.makedev(1, 3))):\n"
        "    try:\n        attempt()\n        result.append('DONE')\n    except OSError as e:\n        result.append(e.errno)\n"
    ).output
    assert "DONE" not in out


def test_pids_are_limited(raw):
    out = raw(
        "import threading, time\nthreads = []\n"
        "try:\n"
        "    for _ in range(500):\n"
        "        t = threading.Thread(target=time.sleep, args=(2,), daemon=True)\n"
        "        t.start()\n"
        "        threads.append(t)\n"
        "    result = 'UNLIMITED'\n"
        "except RuntimeError:\n"
        "    result = len(threads)\n"
    ).output
    assert out != "UNLIMITED"
    assert out < 64


def test_memory_is_limited(raw):
    with pytest.raises(InterpreterError, match="died.*memory"):
        raw("blocks = []\nfor _ in range(64):\n    blocks.append(bytearray(16 * 1024 * 1024))")
    assert raw("result = 1 + 1").output == 2  # a fresh container


def test_host_secrets_and_files_do_not_enter(raw):
    os.environ["SMOL_DOCKER_SECRET"] = CANARY
    try:
        out = raw(
            "import os\nresult = {'env': dict(os.environ), 'work': os.path.exists('/work'), "
            "'sock': os.path.exists('/var/run/docker.sock')}"
        ).output
    finally:
        os.environ.pop("SMOL_DOCKER_SECRET")
    assert CANARY not in repr(out["env"])
    assert set(out["env"]) <= {
        "PATH",
        "LANG",
        "LC_ALL",
        "HOME",
        "PYTHONIOENCODING",
        "PYTHONHASHSEED",
        "OPENBLAS_NUM_THREADS",
        "OMP_NUM_THREADS",
        "MKL_NUM_THREADS",
        "NUMEXPR_NUM_THREADS",
        "MPLBACKEND",
        "TMPDIR",
        "HOSTNAME",
    }
    assert out["work"] is False and out["sock"] is False


def test_network_option_is_accepted(make_docker):
    """Our engine runs with --bridge=none, so this only checks the option starts a container."""
    raw = make_docker(unguarded_for_tests=True, network=True)
    assert "lo" in raw("import os\nresult = os.listdir('/sys/class/net')").output
