"""The sandboxed worker: everything that runs inside the sandbox, in every executor.

The local executor runs it in a sandboxed process; the Docker, E2B and WebAssembly executors ship
this folder whole into their container or sandbox (`host/bundle.py`) and run it there. So the folder
is the trust line: code here runs next to the model's code and must need nothing but the standard
library and this folder (`tests/core/executor/test_worker_folder.py` keeps it so), and the host
treats every frame it sends as hostile input.

Layers (see each module's docstring):
  guards.py, last_value.py, runtime.py, views.py, specials.py, policy.py, module_policy.py,
      star_grant.py: the language layer (AST
      checks and rewrites, guarded getattr/import/format, curated builtins, filtered module views,
      what may be imported);
  audit.py: a PEP 578 audit hook (runtime compiles, file access, process/network/ctypes events);
  sandbox.py, seccomp.py: the OS layer (rlimits, namespaces, Landlock, the seccomp filter), each
      where available;
  lifetime.py: time and lifetime from inside the worker (a kernel timer and CPU limit per action,
      death with its host, no threads left behind);
  protocol.py, framing.py, channel.py: the value codec and the frames (shared with the host, which
      imports them from here), and the worker's end of the channel;
  session.py, error_text.py: the code's state between actions, one action's run, and the errors
      the model reads;
  main.py: the worker process itself (`python -m smol_core.executors.worker.main`).

Powerful modules: `os`, `sys`, `importlib` and `io` are never handed out whole. Naming one exactly in
`additional_authorized_imports` gives a reduced view (paths and scratch-folder files for `os`;
`stdout`, `version` and friends for `sys`, whose `modules` maps only what the code may import, to
its views; a guarded `import_module` for `importlib`; `StringIO` and `BytesIO` for `io`). Other
dangerous modules (subprocess, ctypes, pickle, socket, ...) are never granted by `"*"`: they must be
named exactly, and then come whole, with the OS layer still in force.
"""
