"""A durable team over Redis: an agent killed mid-run resumes where it was in its inbox.

Redis keeps what an agent was handed and had not acknowledged, and gives it to the next reader of
the inbox (at-least-once). The killed agent had taken its task's message and not acknowledged it
yet (a batch is acknowledged at the next receive); its checkpoint says so, so the resumed agent
acknowledges it and is not handed it a second time when Redis delivers it again. Without that
inbox position it would read its own task again as the factor, and answer 21 * 21.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2] / "teams"))
from test_durable_team import _team  # noqa: E402  (the team and its scripts: tests/teams)


def test_a_killed_agent_is_not_handed_again_what_redis_redelivers(redis_url, tmp_path):
    team, log = _team(tmp_path, kill_at=1)
    # what a dead reader held is claimable at once: the resumed agent's first receive gets it
    team.transport_name, team.transport_kwargs = "redis", {"url": redis_url, "claim_idle_seconds": 0.01}
    result = team.run("Double 21 with your peer", run_id="redis-team")
    assert (tmp_path / "killed").exists()
    assert result.agents[1].restarts == 1
    assert result.state == "success" and result.output == "42"
    assert log.read_text().splitlines() == ["0", "1"]


def test_an_agent_started_again_logs_in_as_its_own_acl_user(secured_redis_server, tmp_path):
    """The replacement of a killed agent is handed the same share of the keys, so the same user."""
    team, log = _team(tmp_path, kill_at=1)
    team.transport_name = "redis"
    team.transport_kwargs = {
        "url": secured_redis_server.url,
        "admin_password_file": secured_redis_server.admin_password_file,
        "claim_idle_seconds": 0.01,
    }
    result = team.run("Double 21 with your peer", run_id="redis-acl-team")
    assert result.agents[1].restarts == 1
    assert result.state == "success" and result.output == "42"
    assert log.read_text().splitlines() == ["0", "1"]
