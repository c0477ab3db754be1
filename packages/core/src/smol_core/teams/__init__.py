"""Teams of agents: independent processes that talk through message queues.

`SendMessageTool` / `ReceiveMessagesTool` give an agent its voice and its inbox; a `Transport`
plugin (`local`: named pipes on this machine; `redis`, ...) carries the messages; `run_agents` starts a
team, gives agent 0 the task, and stops every process when the run is over.
"""

from __future__ import annotations

from smol_core.teams.errors import (
    MessageRefusedError,
    MessageTooLargeError,
    MessagingError,
    PeerGoneError,
    UnknownRecipientError,
)
from smol_core.teams.launcher import AgentLauncher, AgentProcess, LocalLauncher
from smol_core.teams.local import LocalTransport
from smol_core.teams.message import DEFAULT_MAX_MESSAGE_BYTES, Message
from smol_core.teams.record import load_team_run, render_team_run, save_team_run
from smol_core.teams.settings import AgentSettings
from smol_core.teams.team import AgentOutcome, Team, TeamResult, resume_agents, run_agents
from smol_core.teams.tools import MessageLog, ReceiveMessagesTool, SendMessageTool
from smol_core.teams.transport import Deduplicator, Transport

__all__ = [
    "DEFAULT_MAX_MESSAGE_BYTES",
    "AgentLauncher",
    "AgentOutcome",
    "AgentProcess",
    "AgentSettings",
    "Deduplicator",
    "LocalLauncher",
    "LocalTransport",
    "Message",
    "MessageLog",
    "MessageRefusedError",
    "MessageTooLargeError",
    "MessagingError",
    "PeerGoneError",
    "ReceiveMessagesTool",
    "SendMessageTool",
    "Team",
    "TeamResult",
    "Transport",
    "UnknownRecipientError",
    "load_team_run",
    "render_team_run",
    "resume_agents",
    "run_agents",
    "save_team_run",
]
