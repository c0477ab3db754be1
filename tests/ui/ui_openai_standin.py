"""A stand-in OpenAI-compatible chat-completions server on 127.0.0.1, scripted by the test.

A request with `"stream": true` gets the reply as OpenAI streams it (server-sent chunks, word by
word, then the finish reason and the usage). With `hold_after` set, the stream stops after that
text until the test sets `release`: the test can look at the page while the model is mid-reply.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
STANDIN_REPLY = "Thought: shout it.\n```python\nfinal_answer(shout('saved app works'))\n```"


@dataclass
class Standin:
    url: str = ""  # the base URL, http://127.0.0.1:PORT/v1
    reply: str = STANDIN_REPLY  # what every chat completion answers
    hold_after: str | None = None  # a streamed reply waits for `release` once this much is sent
    release: threading.Event = field(default_factory=threading.Event, repr=False)
    server: ThreadingHTTPServer | None = field(default=None, repr=False)

    def close(self) -> None:
        self.release.set()
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
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if request.get("stream"):
                self._stream()
                return
            message = {"role": "assistant", "content": standin.reply}
            body = json.dumps(
                {
                    "id": "chatcmpl-1",
                    "object": "chat.completion",
                    "created": 0,
                    "model": "standin",
                    "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
                    "usage": USAGE,
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _stream(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()  # no length: the body ends when the connection closes
            self._send({"role": "assistant", "content": ""})
            sent = ""
            for word in re.findall(r"\S+\s*|\s+", standin.reply):
                self._send({"content": word})
                sent += word
                if standin.hold_after is not None and sent.rstrip().endswith(standin.hold_after):
                    standin.release.wait(120)
            self._send({}, finish_reason="stop")
            self._send(None, usage=USAGE)
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

        def _send(
            self, delta: dict[str, Any] | None, finish_reason: str | None = None, usage: Any = None
        ) -> None:
            chunk: dict[str, Any] = {
                "id": "c",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": "standin",
            }
            chunk["choices"] = (
                [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish_reason}]
            )
            if usage:
                chunk["usage"] = usage
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()

    standin.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    standin.url = f"http://127.0.0.1:{standin.server.server_address[1]}/v1"
    threading.Thread(target=standin.server.serve_forever, args=(0.05,), daemon=True).start()
    return standin
