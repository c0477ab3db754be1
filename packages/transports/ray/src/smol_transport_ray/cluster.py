"""Joining a Ray cluster from whichever process needs the team's mailbox.

Every agent process connects on its own (a Ray connection does not cross `spawn`), to the address
the team's host resolved: so when the host started a local cluster, its agents join that one
instead of each starting their own.
"""

from __future__ import annotations

import logging
import signal
import socket
import threading
from typing import Any

from smol_core.plugin_api import MessagingError

NAMESPACE = "smol"
"""Mailboxes are named actors in this Ray namespace: agents of one team find theirs by name."""

PROBE_SECONDS = 10.0
_lock = threading.Lock()


def connect(address: str | None) -> Any:
    """The `ray` module, connected: to `address` (`auto`, `host:6379`, `ray://head:10001`), or when
    None to the cluster this process is already connected to, else a new local one.

    The address other processes of the team should join is `gcs_address()` afterwards.
    """
    import ray

    with _lock:
        if ray.is_initialized():
            return ray
        # ray.init makes SIGTERM exit the process at once; an agent's process has its own handler
        # (stop the run, report what it did), which must stay in force
        in_main = threading.current_thread() is threading.main_thread()
        previous = signal.getsignal(signal.SIGTERM) if in_main else None
        try:
            _init(ray, address)
        except (ConnectionError, RuntimeError, ValueError, TimeoutError) as error:
            where = f"the Ray cluster at {address}" if address else "a local Ray cluster"
            raise MessagingError(f"could not join {where}: {str(error)[:500]}") from None
        finally:
            if in_main and previous is not None:
                signal.signal(signal.SIGTERM, previous)
    return ray


def _probe(address: str) -> None:
    """A `host:port` that does not answer is an error now: `ray.init` would retry it for minutes."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        return  # `auto`, or a form Ray resolves itself
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=PROBE_SECONDS).close()
    except OSError as error:
        raise MessagingError(f"could not join the Ray cluster at {address}: {error}") from None


def _init(ray: Any, address: str | None) -> None:
    if address is not None and address.startswith("ray://"):  # Ray Client takes fewer options
        ray.init(address=address, namespace=NAMESPACE, logging_level=logging.WARNING)
    else:
        if address is not None:
            _probe(address)
        ray.init(
            address=address,
            namespace=NAMESPACE,
            # agents print their own lines; the cluster's copies of worker logs would double them
            log_to_driver=False,
            logging_level=logging.WARNING,
            # a cluster started here for one team needs no web dashboard (and starts faster)
            include_dashboard=False if address is None else None,
        )


def gcs_address() -> str | None:
    """The address another process on the network can join this process's cluster with."""
    import ray

    try:
        context = ray.get_runtime_context()
        address = getattr(context, "gcs_address", None)
    except Exception:  # Ray Client connections have no local runtime context
        return None
    return str(address) if address else None
