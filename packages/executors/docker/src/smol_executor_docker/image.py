"""Making the executor's image: from a Dockerfile (with a registry) or a debootstrap root file system.

Why so little goes into the image: the worker itself is sent at container start (see
`smol_core.executors.host.bundle`), so the image only needs python3 and whatever packages the agent's
code may import. It never has to be rebuilt when smol is upgraded.

Why a root-file-system path: machines without an image registry (air-gapped servers, our CI) can
still make an image: `debootstrap` fetches Debian packages from the apt mirror, and `docker import`
turns the folder into an image (about 1-3 minutes).
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from smol_core.plugin_api import SmolError
from smol_executor_docker import engine

DEFAULT_BASE = "python:3.11-slim"
DEFAULT_SUITE = "bookworm"
DEFAULT_MIRROR = "http://deb.debian.org/debian"
_TRIM = ("var/cache/apt/archives", "var/lib/apt/lists", "usr/share/doc", "usr/share/man", "usr/share/info")

Log = Callable[[str], None]


class BuildError(SmolError, RuntimeError):
    """The image could not be made; the message says which step failed and what to do."""


def dockerfile(base: str = DEFAULT_BASE, pip_packages: Sequence[str] = ()) -> str:
    """The Dockerfile for registry users: a python base, optional packages, an unprivileged user."""
    lines = [f"FROM {base}", "LABEL smol.image=1"]
    if pip_packages:
        lines.append("RUN pip install --no-cache-dir " + " ".join(pip_packages))
    lines.append("USER 65534:65534")
    return "\n".join(lines) + "\n"


def build_from_dockerfile(
    client: Any, tag: str, base: str = DEFAULT_BASE, pip_packages: Sequence[str] = (), log: Log = print
) -> None:
    """`docker build` of `dockerfile(...)` (pulls `base` from its registry)."""
    build_dockerfile_text(client, tag, dockerfile(base, pip_packages), log)


def build_dockerfile_text(client: Any, tag: str, text: str, log: Log = print) -> None:
    """`docker build` of the Dockerfile `text` as `tag`."""
    docker = engine.import_docker()
    log(f"building {tag} from:\n{text}")
    try:
        _, output = client.images.build(fileobj=io.BytesIO(text.encode()), tag=tag, rm=True, forcerm=True)
        for chunk in output:
            if isinstance(chunk, dict) and chunk.get("stream"):
                log(str(chunk["stream"]).rstrip())
    except docker.errors.DockerException as exc:
        raise BuildError(
            f"docker build failed: {engine._short(exc, 600)}\nWithout a registry, use --from-rootfs."
        ) from None


def debian_mirror(suite: str = DEFAULT_SUITE) -> str:
    """The Debian mirror apt already uses here (SMOL_DEBIAN_MIRROR overrides), else deb.debian.org."""
    if os.environ.get("SMOL_DEBIAN_MIRROR"):
        return os.environ["SMOL_DEBIAN_MIRROR"]
    for path in sorted(Path("/etc/apt/sources.list.d").glob("*.sources")):
        uris, suites = "", ""
        for line in [*path.read_text(errors="replace").splitlines(), ""]:
            key, _, value = line.partition(":")
            if key.strip() == "URIs":
                uris = value.strip()
            elif key.strip() == "Suites":
                suites = value.strip()
            elif not line.strip():
                if suite in suites.split() and uris.split():
                    return uris.split()[0]
                uris, suites = "", ""
    sources = Path("/etc/apt/sources.list")
    if sources.exists():
        for line in sources.read_text(errors="replace").splitlines():
            parts = line.split()
            if len(parts) >= 3 and parts[0] == "deb" and parts[2] == suite and "[" not in parts[1]:
                return parts[1]
    return DEFAULT_MIRROR


def build_from_rootfs(
    client: Any,
    tag: str,
    suite: str = DEFAULT_SUITE,
    mirror: str | None = None,
    apt_packages: Sequence[str] = (),
    workdir: str | None = None,
    log: Log = print,
) -> None:
    """debootstrap a minimal Debian with python3 (+ `apt_packages`), then `docker import` it as `tag`."""
    if shutil.which("debootstrap") is None:
        raise BuildError("debootstrap is not installed: `sudo apt-get install -y debootstrap`.")
    if os.geteuid() != 0:
        raise BuildError("debootstrap needs root: run `sudo smol executor docker build --from-rootfs`.")
    mirror = mirror or debian_mirror(suite)
    include = ",".join(["python3", *apt_packages])
    with tempfile.TemporaryDirectory(prefix="smol-rootfs-", dir=workdir) as tmp:
        root = Path(tmp) / "root"
        command = ["debootstrap", "--variant=minbase", f"--include={include}", suite, str(root), mirror]
        log("$ " + " ".join(command))
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise BuildError(
                f"debootstrap failed ({done.returncode}):\n{(done.stdout + done.stderr)[-2000:]}"
            )
        for relative in _TRIM:
            target = root / relative
            if target.is_dir():
                shutil.rmtree(target, ignore_errors=True)
                target.mkdir(parents=True, exist_ok=True)
        log(f"importing {root} as {tag}")
        _import(client, root, tag)


def _import(client: Any, root: Path, tag: str) -> None:
    docker = engine.import_docker()
    repository, _, version = tag.rpartition(":") if ":" in tag.split("/")[-1] else (tag, "", "latest")
    tar = subprocess.Popen(["tar", "-C", str(root), "--numeric-owner", "-c", "."], stdout=subprocess.PIPE)
    assert tar.stdout is not None
    try:
        client.api.import_image(
            src=tar.stdout,
            repository=repository,
            tag=version,
            changes=["USER 65534:65534", "LABEL smol.image=1", 'CMD ["python3"]'],
            stream_src=True,
        )
    except docker.errors.DockerException as exc:
        raise BuildError(f"docker import failed: {engine._short(exc, 600)}") from None
    finally:
        tar.stdout.close()
        tar.wait()
    if tar.returncode != 0:
        raise BuildError(f"tar of the root file system failed ({tar.returncode})")


def image_exists(client: Any, tag: str) -> bool:
    docker = engine.import_docker()
    try:
        client.images.get(tag)
    except docker.errors.ImageNotFound:
        return False
    return True


def smoke_test(client: Any, tag: str) -> str:
    """Runs python3 in the new image the way the executor will; returns its version line."""
    output = client.containers.run(
        tag,
        ["python3", "-I", "-c", "import sys; print(sys.version.split()[0])"],
        remove=True,
        network_mode="none",
        user="65534:65534",
        read_only=True,
        cap_drop=["ALL"],
    )
    version = bytes(output).decode().strip()
    if tuple(int(p) for p in version.split(".")[:2]) < (3, 11):
        raise BuildError(f"{tag} has Python {version}; the worker needs 3.11 or newer")
    return version
