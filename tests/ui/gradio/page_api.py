"""Call the chat page's events as any HTTP client can, without the page (Gradio's queue API)."""

from __future__ import annotations

import json
import urllib.request


def call_event(server: tuple[str, int], handler: str, data: list[object], session_hash: str) -> str:
    """Call the page's event whose handler is named `handler` as any HTTP client can (Gradio's queue),
    under a session id of the caller's choosing; the event's stream, as text."""
    base = f"http://{server[0]}:{server[1]}"
    with urllib.request.urlopen(base + "/config", timeout=30) as answer:  # noqa: S310 (127.0.0.1 only)
        config = json.load(answer)
    (index,) = [i for i, d in enumerate(config["dependencies"]) if d.get("api_name") == handler]
    trigger = config["dependencies"][index]["targets"][0][0]
    join = json.dumps(
        {
            "data": data,
            "fn_index": index,
            "session_hash": session_hash,
            "event_data": None,
            "trigger_id": trigger,
        }
    ).encode()
    request = urllib.request.Request(
        base + "/gradio_api/queue/join", data=join, headers={"Content-Type": "application/json"}
    )
    urllib.request.urlopen(request, timeout=30).close()  # noqa: S310 (127.0.0.1 only)
    lines = []
    with urllib.request.urlopen(  # noqa: S310 (127.0.0.1 only)
        f"{base}/gradio_api/queue/data?session_hash={session_hash}", timeout=30
    ) as stream:
        for raw in stream:
            lines.append(raw.decode())
            if "process_completed" in lines[-1]:
                break
    return "".join(lines)
