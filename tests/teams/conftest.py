from __future__ import annotations

import textwrap

import pytest


@pytest.fixture
def make_distribution(tmp_path, monkeypatch):
    """Write a fake installed distribution (module + dist-info with a `smol` entry point) on sys.path."""
    monkeypatch.syspath_prepend(str(tmp_path))

    def make(dist: str, module: str, source: str) -> None:
        (tmp_path / f"{module}.py").write_text(textwrap.dedent(source))
        info = tmp_path / f"{dist.replace('-', '_')}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text(f"[smol]\n{dist} = {module}\n")

    return make
