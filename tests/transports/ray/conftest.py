"""One real local Ray cluster per test session (`ray.init()`: slow to start), stopped after.

Ray lives in the `plugin-ray` hatch environment only. Without it these tests skip, unless
SMOL_REQUIRE_RAY=1 (as in scripts/test, which runs them in that environment), where they fail.
"""

from __future__ import annotations

import importlib.util
import logging
import os
from collections.abc import Iterator

import pytest

if importlib.util.find_spec("ray") is None:
    if os.environ.get("SMOL_REQUIRE_RAY") == "1":
        raise RuntimeError("ray is not installed: run these tests with `hatch run plugin-ray:test`")
    collect_ignore_glob = ["test_*.py"]


@pytest.fixture(scope="session")
def ray_address() -> Iterator[str]:
    """The local cluster's address, which the agents' spawned processes join."""
    import ray

    # offline, and no reports about this cluster anywhere; the agents' processes inherit it
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    ray.init(
        num_cpus=2,
        namespace="smol",
        include_dashboard=False,
        log_to_driver=False,
        logging_level=logging.WARNING,
        object_store_memory=80 * 1024 * 1024,
    )
    try:
        yield str(ray.get_runtime_context().gcs_address)
    finally:
        ray.shutdown()
