"""Every error smol raises to its users, in one place: `from smol_core.exceptions import ...`.

Each class is defined next to the code that raises it (`smol_core.errors` holds the shared bases,
imported by everything below); this module only gathers them, so that a user looking for what to
catch reads one page. Two families, on purpose: `SmolError`s are errors of the host's making (bad
configuration, an unknown plugin, a server that is down), raised to the caller with a message that
says what to do; `AgentError`s are errors of the model's making (an unparsable reply, a failing
tool), which the agent shows the model as the step's observation so it can correct itself. A few
older errors keep the standard base that smolagents gave them (`InterpreterError` is a `ValueError`).

The tree below is the real class hierarchy (`tests/core/test_exceptions.py` checks it): a class
sits under its first base, and `+` names its other bases.

```text
Exception
|-- SmolError                                          the host's making: raised to the caller, not the model
|   |-- PluginNotFoundError + LookupError, ValueError  no installed plugin registers the name asked for
|   |-- PluginArgumentError + TypeError                a plugin's factory got a keyword it does not take
|   |-- PluginConflictError                            two installed distributions register one name
|   |-- MissingPluginError + ImportError               a feature needs a plugin package not installed
|   |-- BudgetExceededError                            a run reached a limit of its budget and stopped
|   |-- ModelAPIError + AgentGenerationError           a model's API refused, or failed after the retries
|   |-- DocstringParsingException                      a function made a tool leaves an argument undescribed
|   |-- TypeHintParsingException                       a function made a tool has a type JSON cannot say
|   |-- AgentLoadError + ValueError                    a saved agent's folder or dict is malformed
|   |-- ExecutorUnavailableError + RuntimeError        the executor's backend cannot be reached or started
|   |-- UntrustedFileError + ValueError                a file for a viewer is too large, too deep, not text
|   |   `-- TeamRecordError                            a team-run file cannot be read, or is not one
|   |-- AddressRefusedError                            a URL or redirect names an address the policy refuses
|   |-- TooManyRedirectsError                          a guarded fetch was redirected too many times
|   |-- DownloadTooLargeError                          a guarded fetch's body is larger than allowed
|   |-- MessagingError                                 a team message could not be sent or received
|   |   |-- UnknownRecipientError + LookupError        the recipient is not an agent of the team
|   |   |-- MessageTooLargeError + ValueError          the encoded message is over the transport's limit
|   |   |-- MessageRefusedError + ValueError           a message is not well-formed (untrusted input)
|   |   `-- PeerGoneError                              the recipient's process has ended
|   |-- ToolCallInterruptedError                       a tool call a crash cut off is not made again on resume
|   |-- ApprovalPendingError                           a durable run paused for a person's decision on a call
|   |-- ToolCallDeniedError                            a person denied the call: not made, the model reads why
|   |-- CassetteError                                  a cassette cannot be written or read as it is
|   |-- ReplayDivergenceError                          a replayed run asked for what its cassette does not hold
|   `-- CheckpointError                                a durable run's checkpoint cannot be saved or used
|       |-- CheckpointFormatError                      a checkpoint is corrupt, foreign or of another version
|       |-- CheckpointTooLargeError                    a run's state is over the size a load accepts: not saved
|       |-- RunNotFoundError + LookupError             no run of this id in the store
|       |-- RunFinishedError                           the run already ended: it cannot be resumed
|       |-- ApprovalKeyError                           a decision named another call than the one that waits
|       |-- RunLockedError                             another live process holds the run's lease
|       `-- StoreUnavailableError                      the checkpoint store cannot be opened, read or written
|-- AgentError                                         the model's making: it sees the error and may recover
|   |-- AgentParsingError + ValueError                 the model's reply could not be read as an action
|   |-- AgentExecutionError                            the action's code raised, or the sandbox blocked it
|   |   |-- AgentToolCallError                         a tool called with wrong arguments or an unknown name
|   |   |   `-- AgentUnknownToolError + AgentToolExecutionError  a call named no tool (smolagents' class too)
|   |   `-- AgentToolExecutionError                    a tool raised while running
|   |       `-- ToolTimeoutError                       a tool call ran past its time limit
|   |-- AgentMaxStepsError                             the run reached max_steps without a final answer
|   `-- AgentGenerationError                           the model gave no reply after retries: the run stops
|-- RecordedToolError                                  a tool's error from before a crash, given back on resume
|-- HostObjectRefusedError                             the code asked a host object for what it may not have
|-- BlockedAddressError                                a guarded client's connection was refused
`-- SerializationError                                 a value cannot be written safely, or pickle refused
ValueError
|-- InterpreterError                                   the code failed or was blocked (message for the model)
|   |-- ExecutionTimeoutError                          the code ran past the executor's time limit
|   `-- ProtocolViolationError                         the worker broke the protocol: replaced, state lost
|-- FieldError                                         a field of a checkpoint or cassette is malformed
`-- JSONLimitError                                     JSON from a model is nested too deeply
RuntimeError
`-- ProtocolError                                      a worker's frame is malformed or too large
OSError
`-- InboxGoneError                                     a local team's inbox (a named pipe) is gone: its team ended
UserWarning
|-- SavedSettingIgnoredWarning                         a loaded agent's security setting, ignored
`-- SavedSettingAppliedWarning                         a trusted loaded agent's security setting, applied
```

Not here, on purpose: the sandbox worker's own exceptions (`smol_core.executors.worker`), raised to
the agent's code inside the sandbox and seen by the host only as an `InterpreterError`'s message; and
control-flow signals that derive from `BaseException`, not `Exception` (a stopped command, a stopped
team member, a final answer inside a remote sandbox).
"""

from __future__ import annotations

from typing import TYPE_CHECKING as _TYPE_CHECKING

from smol_core.lazy_exports import lazy_exports as _lazy_exports

# Each error lives beside the code that raises it, features' errors in the feature: a name is
# imported when first read, so `import smol_core.exceptions` imports no feature (durable runs,
# replay, teams, the sandbox, the address policy) and `except smol_core.exceptions.X` still works.
_EXPORTS: dict[str, str] = {
    "SavedSettingAppliedWarning": "smol_core.agents.saved_settings",
    "SavedSettingIgnoredWarning": "smol_core.agents.saved_settings",
    "AgentLoadError": "smol_core.agents.serialization",
    "CheckpointTooLargeError": "smol_core.durable.checkpoint",
    "ApprovalKeyError": "smol_core.durable.errors",
    "ApprovalPendingError": "smol_core.durable.errors",
    "CheckpointError": "smol_core.durable.errors",
    "CheckpointFormatError": "smol_core.durable.errors",
    "RunFinishedError": "smol_core.durable.errors",
    "RunLockedError": "smol_core.durable.errors",
    "RunNotFoundError": "smol_core.durable.errors",
    "StoreUnavailableError": "smol_core.durable.errors",
    "ToolCallDeniedError": "smol_core.durable.errors",
    "FieldError": "smol_core.durable.file_format",
    "RecordedToolError": "smol_core.durable.tool_ledger",
    "ToolCallInterruptedError": "smol_core.durable.tool_ledger",
    "AgentError": "smol_core.errors",
    "AgentExecutionError": "smol_core.errors",
    "AgentGenerationError": "smol_core.errors",
    "AgentMaxStepsError": "smol_core.errors",
    "AgentParsingError": "smol_core.errors",
    "AgentToolCallError": "smol_core.errors",
    "AgentToolExecutionError": "smol_core.errors",
    "AgentUnknownToolError": "smol_core.errors",
    "BudgetExceededError": "smol_core.errors",
    "DocstringParsingException": "smol_core.errors",
    "ModelAPIError": "smol_core.errors",
    "PluginArgumentError": "smol_core.errors",
    "PluginConflictError": "smol_core.errors",
    "PluginNotFoundError": "smol_core.errors",
    "SmolError": "smol_core.errors",
    "TypeHintParsingException": "smol_core.errors",
    "ExecutionTimeoutError": "smol_core.executors.base",
    "ExecutorUnavailableError": "smol_core.executors.base",
    "InterpreterError": "smol_core.executors.base",
    "ProtocolViolationError": "smol_core.executors.base",
    "HostObjectRefusedError": "smol_core.executors.host.held",
    "ProtocolError": "smol_core.executors.worker.protocol",
    "JSONLimitError": "smol_core.json_limits",
    "AddressRefusedError": "smol_core.network.address_policy",
    "BlockedAddressError": "smol_core.network.errors",
    "DownloadTooLargeError": "smol_core.network.errors",
    "TooManyRedirectsError": "smol_core.network.errors",
    "MissingPluginError": "smol_core.plugins.lazy",
    "CassetteError": "smol_core.replay.cassette",
    "ReplayDivergenceError": "smol_core.replay.cassette",
    "SerializationError": "smol_core.serialization",
    "MessageRefusedError": "smol_core.teams.errors",
    "MessageTooLargeError": "smol_core.teams.errors",
    "MessagingError": "smol_core.teams.errors",
    "PeerGoneError": "smol_core.teams.errors",
    "UnknownRecipientError": "smol_core.teams.errors",
    "InboxGoneError": "smol_core.teams.fifo_inbox",
    "TeamRecordError": "smol_core.teams.record",
    "ToolTimeoutError": "smol_core.tools.time_limit",
    "UntrustedFileError": "smol_core.untrusted_files",
}

__getattr__, __dir__, __all__ = _lazy_exports(globals(), _EXPORTS)

if _TYPE_CHECKING:
    from smol_core.agents.saved_settings import (
        SavedSettingAppliedWarning as SavedSettingAppliedWarning,
        SavedSettingIgnoredWarning as SavedSettingIgnoredWarning,
    )
    from smol_core.agents.serialization import AgentLoadError as AgentLoadError
    from smol_core.durable.checkpoint import CheckpointTooLargeError as CheckpointTooLargeError
    from smol_core.durable.errors import (
        ApprovalKeyError as ApprovalKeyError,
        ApprovalPendingError as ApprovalPendingError,
        CheckpointError as CheckpointError,
        CheckpointFormatError as CheckpointFormatError,
        RunFinishedError as RunFinishedError,
        RunLockedError as RunLockedError,
        RunNotFoundError as RunNotFoundError,
        StoreUnavailableError as StoreUnavailableError,
        ToolCallDeniedError as ToolCallDeniedError,
    )
    from smol_core.durable.file_format import FieldError as FieldError
    from smol_core.durable.tool_ledger import (
        RecordedToolError as RecordedToolError,
        ToolCallInterruptedError as ToolCallInterruptedError,
    )
    from smol_core.errors import (
        AgentError as AgentError,
        AgentExecutionError as AgentExecutionError,
        AgentGenerationError as AgentGenerationError,
        AgentMaxStepsError as AgentMaxStepsError,
        AgentParsingError as AgentParsingError,
        AgentToolCallError as AgentToolCallError,
        AgentToolExecutionError as AgentToolExecutionError,
        AgentUnknownToolError as AgentUnknownToolError,
        BudgetExceededError as BudgetExceededError,
        DocstringParsingException as DocstringParsingException,
        ModelAPIError as ModelAPIError,
        PluginArgumentError as PluginArgumentError,
        PluginConflictError as PluginConflictError,
        PluginNotFoundError as PluginNotFoundError,
        SmolError as SmolError,
        TypeHintParsingException as TypeHintParsingException,
    )
    from smol_core.executors.base import (
        ExecutionTimeoutError as ExecutionTimeoutError,
        ExecutorUnavailableError as ExecutorUnavailableError,
        InterpreterError as InterpreterError,
        ProtocolViolationError as ProtocolViolationError,
    )
    from smol_core.executors.host.held import HostObjectRefusedError as HostObjectRefusedError
    from smol_core.executors.worker.protocol import ProtocolError as ProtocolError
    from smol_core.json_limits import JSONLimitError as JSONLimitError
    from smol_core.network.address_policy import AddressRefusedError as AddressRefusedError
    from smol_core.network.errors import (
        BlockedAddressError as BlockedAddressError,
        DownloadTooLargeError as DownloadTooLargeError,
        TooManyRedirectsError as TooManyRedirectsError,
    )
    from smol_core.plugins.lazy import MissingPluginError as MissingPluginError
    from smol_core.replay.cassette import (
        CassetteError as CassetteError,
        ReplayDivergenceError as ReplayDivergenceError,
    )
    from smol_core.serialization import SerializationError as SerializationError
    from smol_core.teams.errors import (
        MessageRefusedError as MessageRefusedError,
        MessageTooLargeError as MessageTooLargeError,
        MessagingError as MessagingError,
        PeerGoneError as PeerGoneError,
        UnknownRecipientError as UnknownRecipientError,
    )
    from smol_core.teams.fifo_inbox import InboxGoneError as InboxGoneError
    from smol_core.teams.record import TeamRecordError as TeamRecordError
    from smol_core.tools.time_limit import ToolTimeoutError as ToolTimeoutError
    from smol_core.untrusted_files import UntrustedFileError as UntrustedFileError
