"""Registration, the agent path, the `smol executor docker` command, and bad input."""

from __future__ import annotations

import sys

import pytest

from smol_core.executors.base import ExecutorUnavailableError


@pytest.mark.no_engine_needed
def test_registered_as_a_container_executor():
    from smol_core.plugins.registry import get_registry

    spec = get_registry().executor("docker")
    assert spec.isolation == "container"


@pytest.mark.no_engine_needed
def test_sdk_missing_says_what_to_install(monkeypatch):
    from smol_executor_docker import DockerExecutor

    monkeypatch.setitem(sys.modules, "docker", None)
    with pytest.raises(ExecutorUnavailableError, match=r"-m pip install docker`"):
        DockerExecutor()


@pytest.mark.no_engine_needed
def test_engine_down_says_what_to_start(tmp_path):
    from smol_executor_docker import DockerExecutor

    with pytest.raises(ExecutorUnavailableError, match="not reachable.*Start it"):
        DockerExecutor(docker_url=f"unix://{tmp_path}/no-engine.sock")


@pytest.mark.no_engine_needed
def test_smolagent_with_the_engine_down_is_one_line_and_a_nonzero_exit(tmp_path, monkeypatch, capsys):
    """An executor that cannot start is a host-side error (SmolError): one line on stderr, exit 2."""
    from smol_core import hookimpl
    from smol_core.cli import smolagent
    from smol_core.plugins.registry import PluginRegistry, reset_registry
    from smol_core.plugins.specs import ModelSpec
    from smol_core.testing import ScriptedModel

    class Fixed:
        @hookimpl
        def smol_models(self):
            return [ModelSpec("fixed", lambda **_: ScriptedModel(["<code>\nfinal_answer(1)\n</code>"]))]

    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    registry = PluginRegistry()
    registry.register(Fixed(), name="fixed-plugin")
    previous = reset_registry(registry)
    try:
        assert smolagent.main(["x", "--model-type", "fixed", "--executor", "docker"]) == 2
    finally:
        reset_registry(previous)
    err = capsys.readouterr().err
    assert "not reachable" in err and "Traceback" not in err


def test_image_missing_says_what_to_build():
    from smol_executor_docker import DockerExecutor

    with pytest.raises(ExecutorUnavailableError, match="smol executor docker build --from-rootfs"):
        DockerExecutor(image="smol-executor:does-not-exist")


def test_code_agent_runs_in_the_container():
    from smol_core import CodeAgent, tool
    from smol_core.testing import ScriptedModel

    seen = []

    def record(text: str) -> str:
        """Records a note on the host.

        Args:
            text: what to record.
        """
        seen.append(text)
        return f"recorded {text}"

    model = ScriptedModel(
        [
            "Thought: record it.\n```python\nr = record('hi')\nprint(r)\n```",
            "Thought: done.\n```python\nfinal_answer(r.upper())\n```",
        ]
    )
    agent = CodeAgent(tools=[tool(record)], model=model, executor_type="docker")
    try:
        assert agent.run("note hi") == "RECORDED HI"
        assert seen == ["hi"]
        assert agent.python_executor.container_id is not None
    finally:
        agent.python_executor.close()


@pytest.mark.no_engine_needed
def test_cli_prints_the_dockerfile(capsys):
    from smol_core.cli.smol import main

    assert main(["executor", "docker", "build", "--print-dockerfile", "--pip", "numpy"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("FROM python:3.11-slim")
    assert "pip install --no-cache-dir numpy" in text
    assert "USER 65534:65534" in text


def test_cli_build_if_missing_is_fast(capsys):
    from smol_core.cli.smol import main

    assert main(["executor", "docker", "build", "--from-rootfs", "--if-missing"]) == 0
    assert "already built" in capsys.readouterr().out


def test_cli_status_lists_protections(capsys):
    from smol_core.cli.smol import main

    assert main(["executor", "docker", "status"]) == 0
    out = capsys.readouterr().out
    assert "language guards" in out and "container" in out


@pytest.mark.no_engine_needed
def test_debian_mirror_comes_from_apt(monkeypatch):
    from smol_executor_docker.image import debian_mirror

    monkeypatch.setenv("SMOL_DEBIAN_MIRROR", "http://mirror.example/debian")
    assert debian_mirror() == "http://mirror.example/debian"
    monkeypatch.delenv("SMOL_DEBIAN_MIRROR")
    assert debian_mirror().startswith("http")
