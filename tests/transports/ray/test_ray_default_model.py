"""A Ray team runs on the embedded default model from the `plugin-ray` environment (it had no
llama.cpp: agent 0 printed a traceback, then "No model named 'llamacpp'")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("smol_model_llamacpp")


def test_a_ray_team_on_the_default_model_answers(ray_address: str) -> None:
    smolagent = Path(sys.executable).with_name("smolagent")
    done = subprocess.run(
        [
            str(smolagent),
            "What is 17 times 23?",
            "--num-agents",
            "2",
            "--transport",
            "ray",
            "--transport-url",
            ray_address,
            "--deadline",
            "200",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "No model named" not in done.stderr and "Traceback" not in done.stderr, done.stderr[-3000:]
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout == "391\n"
