"""Code executors: where a CodeAgent's actions run.

The line that matters here is trusted host versus hostile worker, and it is a folder line:
`worker/` is everything that runs inside the sandbox (stdlib-only, shipped whole to container and
remote executors); `host/` drives a worker and treats every frame from it as untrusted input.
Around them: `base.py` (the executor interface), `local.py` (`LocalPythonExecutor`, a worker in a
sandboxed local process), `remote.py` (smolagents' base for kernels that run source code), and
`evaluate.py`, `evaluate_failures.py` and `smolagents_support.py` (smolagents' functional interpreter API
over the local executor).
"""
