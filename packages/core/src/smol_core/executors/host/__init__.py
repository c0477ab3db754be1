"""The trusted side of every worker-based executor: it drives a worker and believes nothing it sends.

  driver.py: `WorkerExecutor`, the one driver every executor shares (deadlines, tool calls, final
      answers, crashes and time-outs, the same error messages for the model);
  link.py: `WorkerLink`, what a transport to a worker provides, and `FramedLink`, the read loop every
      link shares (a local pipe, a container's stream, a remote sandbox's command);
  exchange.py: one exchange with the worker (an action, a namespace read) and the tool calls in it;
  frames.py, untrusted.py: every frame checked against a schema and limits, every value decoded
      under a budget;
  bundle.py: the worker folder as a payload, for executors whose worker runs elsewhere;
  process.py, scratch.py: the local executor's worker processes (a warm spare) and scratch folders.

The worker's own code is in `../worker/`; the host imports the wire format (`worker/protocol.py`,
`worker/framing.py`) from there, never the other way round.
"""
