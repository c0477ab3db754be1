"""`smol executor docker build|status`: make the executor's image, and say whether Docker is ready.

Import-light: argparse only until a subcommand runs (the `smol` command lists every plugin's commands).
"""

from __future__ import annotations

import argparse
import sys


def configure(parser: argparse.ArgumentParser) -> None:
    backends = parser.add_subparsers(dest="executor_backend", metavar="BACKEND", required=True)
    docker = backends.add_parser("docker", help="The Docker executor.")
    actions = docker.add_subparsers(dest="docker_action", metavar="ACTION", required=True)

    build = actions.add_parser(
        "build",
        help="Build the executor's image.",
        description="Build the image: `docker build` from a python base (needs a registry), or "
        "--from-rootfs: debootstrap a Debian root file system and `docker import` it (needs root, "
        "debootstrap and an apt mirror; no registry).",
    )
    build.add_argument("--tag", default=None, help="Image name (default: the executor's default image).")
    build.add_argument("--from-rootfs", action="store_true", help="Build without a registry (debootstrap).")
    build.add_argument("--base", default=None, help="Base image for the Dockerfile build.")
    build.add_argument("--pip", nargs="*", default=[], metavar="PKG", help="pip packages (Dockerfile build).")
    build.add_argument("--apt", nargs="*", default=[], metavar="PKG", help="Debian packages (--from-rootfs).")
    build.add_argument("--suite", default=None, help="Debian suite for --from-rootfs (default: bookworm).")
    build.add_argument("--mirror", default=None, help="Debian mirror for --from-rootfs (default: apt's).")
    build.add_argument("--if-missing", action="store_true", help="Do nothing when the image exists.")
    build.add_argument("--print-dockerfile", action="store_true", help="Print the Dockerfile and exit.")

    actions.add_parser("status", help="Is the engine reachable, is the image there, what protects the code?")


def run(args: argparse.Namespace) -> int:
    if args.docker_action == "build":
        return _build(args)
    return _status(args)


def _build(args: argparse.Namespace) -> int:
    from smol_core.plugin_api import ExecutorUnavailableError
    from smol_executor_docker import engine, image

    tag = args.tag or engine.DEFAULT_IMAGE
    if args.print_dockerfile:
        print(image.dockerfile(args.base or image.DEFAULT_BASE, args.pip), end="")
        return 0
    try:
        client = engine.connect()
        if args.if_missing and image.image_exists(client, tag):
            print(f"{tag} is already built.")
            return 0
        if args.from_rootfs:
            image.build_from_rootfs(client, tag, args.suite or image.DEFAULT_SUITE, args.mirror, args.apt)
        else:
            image.build_from_dockerfile(client, tag, args.base or image.DEFAULT_BASE, args.pip)
        version = image.smoke_test(client, tag)
    except (ExecutorUnavailableError, image.BuildError) as error:
        print(f"smol executor docker build: {error}", file=sys.stderr)
        return 1
    print(f"built {tag} (Python {version})")
    return 0


def _status(args: argparse.Namespace) -> int:
    from smol_core.plugin_api import ExecutorUnavailableError
    from smol_executor_docker import DEFAULT_IMAGE, DockerExecutor

    try:
        executor = DockerExecutor(image=DEFAULT_IMAGE)
        try:
            executor.wait_until_ready()
        finally:
            executor.close()
    except ExecutorUnavailableError as error:
        print(f"Docker executor unavailable: {error}", file=sys.stderr)
        return 1
    print(f"Docker engine reachable; image {DEFAULT_IMAGE} present; a container started.")
    print("Protections (the worker's, then the container's walls):")
    for name, active, detail in executor.protections:
        print(f"  [{'on ' if active else 'off'}] {name}: {detail}")
    return 0
