"""A stand-in Amazon Bedrock runtime on 127.0.0.1 that the real boto3 client talks to.

Bedrock lives in a cloud, so the tests run boto3 for real (serialisation, SigV4 signing, error
parsing, event-stream decoding) against this server through `endpoint_url=`. It speaks the Converse
JSON and writes `converse-stream` replies in AWS's binary event-stream framing (prelude, headers,
payload, two CRC32s). Replies are scripted per test (a Converse reply asked for as a stream is sent
as the events that spell it); every request is recorded for assertions.
"""

from __future__ import annotations

import binascii
import json
import re
import struct
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote


def _header(name: str, value: str) -> bytes:
    raw_name, raw_value = name.encode(), value.encode()
    return (
        struct.pack("B", len(raw_name)) + raw_name + b"\x07" + struct.pack(">H", len(raw_value)) + raw_value
    )


def event_frame(headers: dict[str, str], payload: bytes) -> bytes:
    """One event-stream message: total length, headers length, prelude CRC, headers, payload, message CRC."""
    raw_headers = b"".join(_header(k, v) for k, v in headers.items())
    total = 12 + len(raw_headers) + len(payload) + 4
    prelude = struct.pack(">II", total, len(raw_headers))
    prelude += struct.pack(">I", binascii.crc32(prelude))
    message = prelude + raw_headers + payload
    return message + struct.pack(">I", binascii.crc32(message))


def event(name: str, body: dict[str, Any]) -> bytes:
    headers = {":event-type": name, ":content-type": "application/json", ":message-type": "event"}
    return event_frame(headers, json.dumps(body).encode())


def exception_event(name: str, message: str) -> bytes:
    headers = {":exception-type": name, ":content-type": "application/json", ":message-type": "exception"}
    return event_frame(headers, json.dumps({"message": message}).encode())


@dataclass
class Failure:
    """A scripted error reply: HTTP status plus Bedrock's error code."""

    status: int
    code: str
    message: str = "scripted failure"


@dataclass
class Recorded:
    path: str
    model_id: str
    body: dict[str, Any]
    headers: dict[str, str]


@dataclass
class StandInBedrock:
    """The server's state: what to answer next, and what it was asked."""

    replies: list[Any] = field(default_factory=list)
    requests: list[Recorded] = field(default_factory=list)
    url: str = ""
    default: Any = None
    """What to answer when `replies` has run out (`text_reply("ok")` unless set)."""
    honours_stops: bool = False
    """Cut replies at the request's `stopSequences`, as Bedrock does (off: an overrun to guard against)."""

    def reply(self, *replies: Any) -> None:
        self.replies.extend(replies)

    def next_reply(self) -> Any:
        if self.replies:
            return self.replies.pop(0)
        return text_reply("ok") if self.default is None else self.default


def text_reply(
    text: str, input_tokens: int = 11, output_tokens: int = 3, stop: str = "end_turn"
) -> dict[str, Any]:
    return {
        "output": {"message": {"role": "assistant", "content": [{"text": text}]}},
        "stopReason": stop,
        "usage": {
            "inputTokens": input_tokens,
            "outputTokens": output_tokens,
            "totalTokens": input_tokens + output_tokens,
        },
        "metrics": {"latencyMs": 5},
    }


def stream_reply(*frames: bytes) -> list[bytes]:
    return list(frames)


def stopped_at(reply: Any, stops: list[str]) -> Any:
    """A Converse reply's text cut before the first of `stops`, as Bedrock stops generating there."""
    if not stops or not isinstance(reply, dict) or "output" not in reply:
        return reply
    reply = json.loads(json.dumps(reply))
    for block in reply["output"].get("message", {}).get("content", []):
        if "text" in block:
            cuts = [block["text"].find(stop) for stop in stops if stop in block["text"]]
            if cuts:
                block["text"] = block["text"][: min(cuts)]
                reply["stopReason"] = "stop_sequence"
    return reply


def frames_of(reply: dict[str, Any]) -> list[bytes]:
    """A Converse reply as `converse-stream` sends it: text in word-sized deltas, each `toolUse` as a
    block of its own, the stop reason, then the usage."""
    frames = [event("messageStart", {"role": "assistant"})]
    blocks = reply.get("output", {}).get("message", {}).get("content", [])
    for index, block in enumerate(blocks):
        if "text" in block:
            for word in re.findall(r"\S+\s*|\s+", block["text"]):
                frames.append(
                    event("contentBlockDelta", {"contentBlockIndex": index, "delta": {"text": word}})
                )
        elif "toolUse" in block:
            use = block["toolUse"]
            start = {"toolUse": {"toolUseId": use["toolUseId"], "name": use["name"]}}
            frames.append(event("contentBlockStart", {"contentBlockIndex": index, "start": start}))
            delta = {"toolUse": {"input": json.dumps(use.get("input", {}))}}
            frames.append(event("contentBlockDelta", {"contentBlockIndex": index, "delta": delta}))
        frames.append(event("contentBlockStop", {"contentBlockIndex": index}))
    frames.append(event("messageStop", {"stopReason": reply.get("stopReason", "end_turn")}))
    if "usage" in reply:
        frames.append(event("metadata", {"usage": reply["usage"], "metrics": {"latencyMs": 1}}))
    return frames


def _handler(state: StandInBedrock) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length) or b"{}")
            parts = self.path.split("/")  # /model/{modelId}/converse[-stream]
            record = Recorded(self.path, unquote(parts[2]), body, dict(self.headers))
            state.requests.append(record)
            auth = self.headers.get("Authorization", "")
            if not auth.startswith("AWS4-HMAC-SHA256 Credential=") or "/bedrock/aws4_request" not in auth:
                return self._json(403, {"message": "missing signature"}, "AccessDeniedException")
            reply = state.next_reply()
            if isinstance(reply, Failure):
                return self._json(reply.status, {"message": reply.message}, reply.code)
            if state.honours_stops:
                reply = stopped_at(reply, body.get("inferenceConfig", {}).get("stopSequences") or [])
            if parts[-1] == "converse-stream":
                return self._stream(reply)
            return self._json(200, reply)

        def _json(self, status: int, body: dict[str, Any], error_type: str | None = None) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            if error_type:
                self.send_header("x-amzn-ErrorType", error_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, reply: list[bytes] | dict[str, Any]) -> None:
            data = b"".join(frames_of(reply) if isinstance(reply, dict) else reply)
            self.send_response(200)
            self.send_header("Content-Type", "application/vnd.amazon.eventstream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


def start_server() -> tuple[ThreadingHTTPServer, StandInBedrock]:
    state = StandInBedrock()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, state
