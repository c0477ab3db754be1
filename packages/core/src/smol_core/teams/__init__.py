"""Teams of agents: independent processes that talk through message queues.

`SendMessageTool` / `ReceiveMessagesTool` give an agent its voice and its inbox; a `Transport`
plugin (`local`: named pipes on this machine; `redis`, ...) carries the messages; `run_agents` starts a
team, gives agent 0 the task, and stops every process when the run is over.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from smol_core.lazy_exports import lazy_exports

# imported on first use: registering the feature's plugin (its package) imports none of it
_EXPORTS = {
    "AgentLauncher": "smol_core.teams.launcher",
    "AgentOutcome": "smol_core.teams.team",
    "AgentProcess": "smol_core.teams.launcher",
    "AgentSettings": "smol_core.teams.settings",
    "DEFAULT_MAX_MESSAGE_BYTES": "smol_core.teams.message",
    "Deduplicator": "smol_core.teams.transport",
    "LocalLauncher": "smol_core.teams.launcher",
    "LocalTransport": "smol_core.teams.local",
    "Message": "smol_core.teams.message",
    "MessageLog": "smol_core.teams.tools",
    "MessageRefusedError": "smol_core.teams.errors",
    "MessageTooLargeError": "smol_core.teams.errors",
    "MessagingError": "smol_core.teams.errors",
    "PeerGoneError": "smol_core.teams.errors",
    "ReceiveMessagesTool": "smol_core.teams.tools",
    "SendMessageTool": "smol_core.teams.tools",
    "Team": "smol_core.teams.team",
    "TeamResult": "smol_core.teams.team",
    "Transport": "smol_core.teams.transport",
    "UnknownRecipientError": "smol_core.teams.errors",
    "load_team_run": "smol_core.teams.record",
    "render_team_run": "smol_core.teams.record",
    "resume_agents": "smol_core.teams.team",
    "run_agents": "smol_core.teams.team",
    "save_team_run": "smol_core.teams.record",
}

__getattr__, __dir__, __all__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:
    from smol_core.teams.errors import (
        MessageRefusedError as MessageRefusedError,
        MessageTooLargeError as MessageTooLargeError,
        MessagingError as MessagingError,
        PeerGoneError as PeerGoneError,
        UnknownRecipientError as UnknownRecipientError,
    )
    from smol_core.teams.launcher import (
        AgentLauncher as AgentLauncher,
        AgentProcess as AgentProcess,
        LocalLauncher as LocalLauncher,
    )
    from smol_core.teams.local import LocalTransport as LocalTransport
    from smol_core.teams.message import (
        DEFAULT_MAX_MESSAGE_BYTES as DEFAULT_MAX_MESSAGE_BYTES,
        Message as Message,
    )
    from smol_core.teams.record import (
        load_team_run as load_team_run,
        render_team_run as render_team_run,
        save_team_run as save_team_run,
    )
    from smol_core.teams.settings import AgentSettings as AgentSettings
    from smol_core.teams.team import (
        AgentOutcome as AgentOutcome,
        Team as Team,
        TeamResult as TeamResult,
        resume_agents as resume_agents,
        run_agents as run_agents,
    )
    from smol_core.teams.tools import (
        MessageLog as MessageLog,
        ReceiveMessagesTool as ReceiveMessagesTool,
        SendMessageTool as SendMessageTool,
    )
    from smol_core.teams.transport import Deduplicator as Deduplicator, Transport as Transport
