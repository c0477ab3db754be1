"""Teams of agents: independent processes that talk through message queues.

`SendMessageTool` / `ReceiveMessagesTool` give an agent its voice and its inbox; a `Transport`
plugin (`local`: multiprocessing queues; `redis`, ...) carries the messages; `run_agents` starts a
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
from smol_core.teams.local import LocalTransport
from smol_core.teams.message import DEFAULT_MAX_MESSAGE_BYTES, Message
from smol_core.teams.settings import AgentSettings
from smol_core.teams.team import AgentOutcome, Team, TeamResult, run_agents
from smol_core.teams.tools import MessageLog, ReceiveMessagesTool, SendMessageTool
from smol_core.teams.transport import Deduplicator, Transport

__all__ = [
    "DEFAULT_MAX_MESSAGE_BYTES",
    "AgentOutcome",
    "AgentSettings",
    "Deduplicator",
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
    "run_agents",
]
