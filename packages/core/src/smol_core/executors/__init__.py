"""Code executors: where a CodeAgent's actions run.

The line that matters here is trusted host versus hostile worker: `local/worker.py` and what it
imports run inside the sandbox (stdlib-only, shipped to container and remote executors by
`bundle.py`); everything else (`host.py`, `exchange.py`, `frames.py`, `untrusted.py`, `protocol.py`
on the host side) drives a worker and treats every frame from it as untrusted input.
"""
