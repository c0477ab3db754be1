"""LlamaServer: a real llama.cpp OpenAI-compatible server in a child process, spoken to over HTTP."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("xllamacpp")

from smol_model_llamacpp.embedded import NotAGGUFFileError
from smol_model_llamacpp.server import LlamaServer, LlamaServerError

pytestmark = [pytest.mark.llama, pytest.mark.slow]


def post(url: str, body: dict[str, Any], key: str | None = None) -> dict[str, Any]:
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers)
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())  # type: ignore[no-any-return]


def test_shared_server_answers_chat_completions(llama_server: LlamaServer) -> None:
    assert llama_server.running
    assert llama_server.base_url.startswith("http://127.0.0.1:") and llama_server.base_url.endswith("/v1")
    with urllib.request.urlopen(llama_server.url + "/health", timeout=5) as response:
        assert json.loads(response.read())["status"] == "ok"
    models = json.loads(urllib.request.urlopen(llama_server.base_url + "/models", timeout=5).read())
    assert any(m["id"] == "smollm2" for m in models["data"])
    reply = post(
        llama_server.base_url + "/chat/completions",
        {"model": "smollm2", "messages": [{"role": "user", "content": "Say hi"}], "max_tokens": 8},
    )
    assert reply["choices"][0]["message"]["content"]
    assert reply["usage"]["completion_tokens"] <= 8


def test_server_with_key_starts_and_stops_cleanly(embedded_gguf: Path) -> None:
    server = LlamaServer(embedded_gguf, n_ctx=512, n_threads=1, api_key="sekret")
    with server:
        process = server._process
        assert process is not None
        with pytest.raises(urllib.error.HTTPError) as refused:
            post(server.base_url + "/chat/completions", {"messages": [{"role": "user", "content": "x"}]})
        assert refused.value.code == 401
        reply = post(
            server.base_url + "/chat/completions",
            {"messages": [{"role": "user", "content": "Say hi"}], "max_tokens": 4},
            key="sekret",
        )
        assert reply["choices"]
        url = server.url
    assert process.returncode == 0  # exited by itself when its stdin closed
    assert not server.running
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url + "/health", timeout=2)
    with pytest.raises(LlamaServerError, match="not running"):
        _ = server.base_url


def test_bad_model_file_is_a_clear_error_before_the_server_starts(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.gguf"
    bogus.write_bytes(b"not a gguf file at all")
    with pytest.raises(NotAGGUFFileError, match="is not a GGUF model file"):
        LlamaServer(bogus, startup_timeout=30).start()
