"""A stand-in OpenAI-compatible chat-completions server on 127.0.0.1, scripted by the test."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

STANDIN_REPLY = "Thought: shout it.\n```python\nfinal_answer(shout('saved app works'))\n```"


@dataclass
class Standin:
    url: str = ""  # the base URL, http://127.0.0.1:PORT/v1
    reply: str = STANDIN_REPLY  # what every chat completion answers
    server: ThreadingHTTPServer | None = field(default=None, repr=False)

    def close(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()


def start_standin() -> Standin:
    """Serve chat completions that answer every request with `standin.reply`."""
    standin = Standin()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            message = {"role": "assistant", "content": standin.reply}
            body = json.dumps(
                {
                    "id": "chatcmpl-1",
                    "object": "chat.completion",
                    "created": 0,
                    "model": "standin",
                    "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
                    "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    standin.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    standin.url = f"http://127.0.0.1:{standin.server.server_address[1]}/v1"
    threading.Thread(target=standin.server.serve_forever, args=(0.05,), daemon=True).start()
    return standin
