"""The plugin-author API: the one module a smol plugin imports from.

A plugin is a package with an entry point in the group `smol` that names a module of `@hookimpl`
functions. Each hook returns typed records (`ModelSpec`, `ExecutorSpec`, `ToolSpec`, `CommandSpec`,
`TransportSpec`, `CheckpointStoreSpec`, `RunExtensionSpec`, `RunOptionSpec`) whose factory is
usually `lazy("my_pkg.module:Name")`, so that discovering every installed plugin never imports an SDK. The hooks and their contracts, each with a runnable example,
are in `smol_core.plugins.hookspecs`; CONTRIBUTING.md walks through writing one of each kind.

Everything else a plugin needs is here too, and only here:
- models: `Model` (implement `generate`, optionally `generate_stream`), `ApiModel` and
  `ChatCompletionsModel` (the request / retry / parse skeleton of an HTTP API model, so a plugin
  writes only its client call), `ModelRequest`, `ModelCapabilities`, the message types, and the
  helpers that turn tools into JSON schemas or grammar-constrained tool calls;
- tools: `Tool`, `as_tool`, `ToolCollection`, the schema helpers;
- executors: `WorkerExecutor` (implement `open_link` and `worker_config`; optionally
  `describe_protections`), the `WorkerLink` protocol a transport to a worker satisfies
  (`FramedLink`: the read loop every link shares, so a link says only what to wait on and how to
  take in what arrived), the
  worker bundle (`bundle_frame`, `loader_command`) that boots the worker anywhere a `python3` runs,
  and the frame codec (`FrameReader`, `encode_message`, `ProtocolLimits`);
- transports: `Message`, `encode`, `wire_text` (a message sealed with its sender's key, as it goes on
  the wire), `accept_message` (the one check every inbox runs: shape, size, address and seal),
  `Deduplicator`, the per-sender quotas (`DEFAULT_MAX_PENDING_*`, `wire_bytes`, `sender_quota_error`),
  the team's keys (`TeamKeys`, `AgentKeys`, `Credentials`) and the messaging errors; for a transport that also starts the agents (`TransportSpec.launcher`),
  `AgentProcess` and `PeerStatus` / `Activity` (the team's shared status);
- the address policy: `AddressPolicy`, `check_url` / `url_refusal` (a URL before it is opened),
  `guarded_request` / `guarded_client` (httpx that checks each address where it connects, each
  redirect hop, and bounds downloads): every tool that fetches a URL goes through them;
- checkpoint stores (`CheckpointStoreSpec`): the `CheckpointStore` contract with its `Lease`,
  `StoredCheckpoint` and `RunRecord` records, the errors a store raises (`StoreUnavailableError`,
  `RunLockedError`), `SQLiteStore`, the reference a new store is tested beside, and `approve` /
  `deny` / `pending_approval` / `ApprovalKeyError` / `short_call` (a UI's buttons for a call a run
  paused for: shown whole, decided by its approval key), and `RetentionPolicy` / `prune_runs` (what
  a store forgets);
- errors: every exception is a `SmolError`; model plugins raise `ModelAPIError`; a missing SDK or
  plugin is named with `install_hint(distribution)`, the command that installs it here (this
  Python, from this checkout or wheelhouse: smol's packages are not on PyPI).

`tests/core/test_plugin_api.py` fails when a plugin imports anything of smol_core but this module,
so a name a plugin needs is added here, where its contract is written, not reached for in a submodule.

Names resolve on first use (PEP 562): `from smol_core.plugin_api import hookimpl, ModelSpec, lazy`
in a plugin's `_plugin.py` costs milliseconds and loads no agent code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING as _TYPE_CHECKING

from smol_core.lazy_exports import lazy_exports as _lazy_exports

_EXPORTS: dict[str, str] = {
    # hooks and the records they return
    "hookimpl": "smol_core.plugins.hookspecs",
    "ModelSpec": "smol_core.plugins.specs",
    "ExecutorSpec": "smol_core.plugins.specs",
    "ToolSpec": "smol_core.plugins.specs",
    "CommandSpec": "smol_core.plugins.specs",
    "TransportSpec": "smol_core.plugins.specs",
    "InstrumentorSpec": "smol_core.plugins.specs",
    "CheckpointStoreSpec": "smol_core.plugins.specs",
    "RunExtensionSpec": "smol_core.plugins.specs",
    "RunOptionSpec": "smol_core.plugins.specs",
    "lazy": "smol_core.plugins.specs",
    # what joins a run (`RunExtensionSpec`): the door's extension and what it sees of each effect
    "RunExtension": "smol_core.effects",
    "ModelCall": "smol_core.effects",
    "ToolEffect": "smol_core.effects",
    "install_hint": "smol_core.install_advice",
    # checkpoint stores: the contract, its records and errors, and the reference store to test beside
    "CheckpointStore": "smol_core.durable.store",
    "Lease": "smol_core.durable.store",
    "RunRecord": "smol_core.durable.store",
    "StoredCheckpoint": "smol_core.durable.store",
    "StoreUnavailableError": "smol_core.durable.errors",
    "RunLockedError": "smol_core.durable.errors",
    "SQLiteStore": "smol_core.durable.sqlite_store",
    # durable engines (smol-durable-temporal): a checkpoint read, run ids, the agent a spec builds
    "Checkpoint": "smol_core.durable.checkpoint",
    "load_checkpoint": "smol_core.durable.checkpoint",
    "check_run_id": "smol_core.durable.runner",
    "RunBudget": "smol_core.agents.budget",
    "AgentSettings": "smol_core.agents.settings",
    "build_agent": "smol_core.agents.settings",
    "BudgetExceededError": "smol_core.errors",
    # and a person's decision on a paused call:
    "ApprovalPendingError": "smol_core.durable.errors",
    "CheckpointError": "smol_core.durable.errors",
    "approve": "smol_core.durable.approvals",
    "deny": "smol_core.durable.approvals",
    "pending_approval": "smol_core.durable.approvals",
    "ApprovalKeyError": "smol_core.durable.errors",
    "short_call": "smol_core.durable.call_view",
    # and what a store forgets
    "RetentionPolicy": "smol_core.durable.retention",
    "prune_runs": "smol_core.durable.retention",
    # a package's names imported on first use, so that discovering the plugin imports no SDK
    "lazy_exports": "smol_core.lazy_exports",
    # errors
    "SmolError": "smol_core.errors",
    "ModelAPIError": "smol_core.errors",
    "AgentToolExecutionError": "smol_core.errors",
    "TypeHintParsingException": "smol_core.errors",
    "ExecutorUnavailableError": "smol_core.executors.base",
    "InterpreterError": "smol_core.executors.base",
    "ProtocolError": "smol_core.executors.worker.protocol",
    "MessagingError": "smol_core.teams.errors",
    "PeerGoneError": "smol_core.teams.errors",
    "UnknownRecipientError": "smol_core.teams.errors",
    "MessageRefusedError": "smol_core.teams.errors",
    "MessageTooLargeError": "smol_core.teams.errors",
    # models
    "Model": "smol_core.models.base",
    "ApiModel": "smol_core.models.api_model",
    "ModelCapabilities": "smol_core.models.capabilities",
    "RetryPolicy": "smol_core.models.retry",
    "StopSequenceFilter": "smol_core.models.stop_filter",
    "DEFAULT_TIMEOUT": "smol_core.models.api_model",
    "CONNECT_TIMEOUT": "smol_core.models.api_model",
    "TOOL_ROLE_CONVERSIONS": "smol_core.models.message_list",
    "get_clean_message_list": "smol_core.models.message_list",
    "get_tool_json_schema": "smol_core.models.tool_calls",
    "get_tool_json_schemas": "smol_core.models.tool_calls",
    "tool_calls_in": "smol_core.models.tool_calls",
    "ChatCompletionsModel": "smol_core.models.chat_completions",
    "CapabilityDetector": "smol_core.models.detection",
    "DetectedCapabilities": "smol_core.models.detection",
    "model_supports_stop": "smol_core.models.openai_format",
    "ModelRequest": "smol_core.models.request",
    "sanitize_schema": "smol_core.models.schema_tool_calls",
    "tool_call_deltas": "smol_core.models.schema_tool_calls",
    "tool_call_from_json": "smol_core.models.schema_tool_calls",
    "tool_call_response_format": "smol_core.models.schema_tool_calls",
    "tool_call_schema": "smol_core.models.schema_tool_calls",
    "tools_prompt": "smol_core.models.schema_tool_calls",
    "with_system_note": "smol_core.models.schema_tool_calls",
    "code_action_grammar": "smol_core.prompting.grammar",
    # messages
    "ChatMessage": "smol_core.messages",
    "ChatMessageStreamDelta": "smol_core.messages",
    "ChatMessageToolCall": "smol_core.messages",
    "ChatMessageToolCallFunction": "smol_core.messages",
    "ChatMessageToolCallStreamDelta": "smol_core.messages",
    "MessageRole": "smol_core.messages",
    "TokenUsage": "smol_core.messages",
    "agglomerate_stream_deltas": "smol_core.messages",
    "remove_content_after_stop_sequences": "smol_core.messages",
    # tools
    "Tool": "smol_core.tools.tool",
    "validate_tool_definition": "smol_core.tools.tool",
    "as_tool": "smol_core.tools.decorator",
    "tool": "smol_core.tools.decorator",
    "FunctionTool": "smol_core.tools.decorator",
    "ToolCollection": "smol_core.tools.collection",
    "tool_from_code": "smol_core.tools.tool",
    "AUTHORIZED_TYPES": "smol_core.tools.schema",
    "json_type_of": "smol_core.tools.schema",
    "parse_google_docstring": "smol_core.tools.schema",
    # the address policy: every tool that fetches a URL checks here (guarded_http needs httpx)
    "ADDRESS_POLICY_ENV": "smol_core.network.address_policy",
    "AddressPolicy": "smol_core.network.address_policy",
    "AddressRefusedError": "smol_core.network.address_policy",
    "AllowEntry": "smol_core.network.address_policy",
    "AllowSetting": "smol_core.network.address_policy",
    "address_class": "smol_core.network.address_policy",
    "check_url": "smol_core.network.address_policy",
    "literal_address": "smol_core.network.address_policy",
    "refusal_message": "smol_core.network.address_policy",
    "resolve_host": "smol_core.network.address_policy",
    "url_refusal": "smol_core.network.address_policy",
    "BlockedAddressError": "smol_core.network.errors",
    "DownloadTooLargeError": "smol_core.network.errors",
    "TooManyRedirectsError": "smol_core.network.errors",
    "guarded_client": "smol_core.network.guarded_http",
    "guarded_request": "smol_core.network.guarded_http",
    "read_bounded": "smol_core.network.guarded_http",
    # agents, memory and outputs (what user interfaces show)
    "MultiStepAgent": "smol_core.agents.multi_step",
    "CodeAgent": "smol_core.agents.code_agent",
    "agent_from_folder": "smol_core.agents.serialization",
    "ActionOutput": "smol_core.agents.events",
    "ToolOutput": "smol_core.agents.events",
    "ActionStep": "smol_core.memory",
    "FinalAnswerStep": "smol_core.memory",
    "PlanningStep": "smol_core.memory",
    "ToolCall": "smol_core.memory",
    "AgentAudio": "smol_core.agent_types",
    "AgentImage": "smol_core.agent_types",
    "AgentText": "smol_core.agent_types",
    "handle_agent_output_types": "smol_core.agent_types",
    "decode_image": "smol_core.agent_types",
    "load_model": "smol_core.loading",
    "load_tools": "smol_core.loading",
    # command-line plugins: the smolagent flags and the agent they describe
    "smolagent_parser": "smol_core.cli.smolagent",
    "check_arguments": "smol_core.cli.smolagent",
    "build_model": "smol_core.cli.smolagent",
    "agent_from_arguments": "smol_core.cli.smolagent",
    "escape_controls": "smol_core.terminal",
    "escape_line": "smol_core.terminal",
    # files a command is handed (a trace, a saved run): bounded before they are parsed
    "UntrustedFileError": "smol_core.untrusted_files",
    "untrusted_lines": "smol_core.untrusted_files",
    "loads_shaped": "smol_core.untrusted_files",
    # executors
    "CodeOutput": "smol_core.executors.base",
    "LocalPythonExecutor": "smol_core.executors.local",
    "WorkerExecutor": "smol_core.executors.host.driver",
    "WorkerLink": "smol_core.executors.host.link",
    "FramedLink": "smol_core.executors.host.link",
    "WorkerProcess": "smol_core.executors.host.process",
    "WORKER_ENV": "smol_core.executors.host.process",
    "ProtocolLimits": "smol_core.executors.host.frames",
    "FrameReader": "smol_core.executors.worker.framing",
    "encode_message": "smol_core.executors.worker.framing",
    "bundle_digest": "smol_core.executors.host.bundle",
    "bundle_frame": "smol_core.executors.host.bundle",
    "loader_command": "smol_core.executors.host.bundle",
    "worker_sources": "smol_core.executors.host.bundle",
    # transports
    "Message": "smol_core.teams.message",
    "encode": "smol_core.teams.message",
    "decode": "smol_core.teams.message",
    "DEFAULT_MAX_MESSAGE_BYTES": "smol_core.teams.message",
    "Transport": "smol_core.teams.transport",
    "accept_message": "smol_core.teams.transport",
    "Deduplicator": "smol_core.teams.transport",
    "MAX_REFUSALS_KEPT": "smol_core.teams.transport",
    "wire_text": "smol_core.teams.transport",
    "wire_bytes": "smol_core.teams.transport",
    "sender_quota_error": "smol_core.teams.transport",
    "DEFAULT_MAX_PENDING_PER_SENDER": "smol_core.teams.transport",
    "DEFAULT_MAX_PENDING_BYTES_PER_SENDER": "smol_core.teams.transport",
    "Credentials": "smol_core.teams.identity",
    "TeamKeys": "smol_core.teams.identity",
    "AgentKeys": "smol_core.teams.identity",
    "PeerStatus": "smol_core.teams.status",
    "Activity": "smol_core.teams.status",
    "AgentProcess": "smol_core.teams.launcher",
    "MAX_RESULT_BYTES": "smol_core.teams.worker",
    # a launcher that forks its agents from a warm template of its own (ray): what that template
    # imports, and the sandbox-worker template the agents' workers fork from (`share`, `join`)
    "FORKSERVER_PRELOAD": "smol_core.teams.start_method",
    "TEMPLATE": "smol_core.executors.host.process",
    # telemetry: the neutral interface an instrumentor implements, and the switch that activates one
    "Instrumentor": "smol_core.instrumentation",
    "SpanHandle": "smol_core.instrumentation",
    "SpanKind": "smol_core.instrumentation",
    "add_instrumentor": "smol_core.instrumentation",
    "remove_instrumentor": "smol_core.instrumentation",
    "instrumentors": "smol_core.instrumentation",
}

__getattr__, __dir__, __all__ = _lazy_exports(
    globals(),
    _EXPORTS,
    hint="A plugin imports only from this module; "
    "if a plugin needs something the core has, add it to _EXPORTS here with its contract.",
)


if _TYPE_CHECKING:
    from smol_core.agent_types import (
        AgentAudio as AgentAudio,
        AgentImage as AgentImage,
        AgentText as AgentText,
        decode_image as decode_image,
        handle_agent_output_types as handle_agent_output_types,
    )
    from smol_core.agents.budget import RunBudget as RunBudget
    from smol_core.agents.code_agent import CodeAgent as CodeAgent
    from smol_core.agents.events import (
        ActionOutput as ActionOutput,
        ToolOutput as ToolOutput,
    )
    from smol_core.agents.multi_step import MultiStepAgent as MultiStepAgent
    from smol_core.agents.serialization import agent_from_folder as agent_from_folder
    from smol_core.agents.settings import AgentSettings as AgentSettings, build_agent as build_agent
    from smol_core.cli.smolagent import (
        agent_from_arguments as agent_from_arguments,
        build_model as build_model,
        check_arguments as check_arguments,
        smolagent_parser as smolagent_parser,
    )
    from smol_core.durable.approvals import (
        approve as approve,
        deny as deny,
        pending_approval as pending_approval,
    )
    from smol_core.durable.call_view import short_call as short_call
    from smol_core.durable.checkpoint import Checkpoint as Checkpoint, load_checkpoint as load_checkpoint
    from smol_core.durable.errors import (
        ApprovalKeyError as ApprovalKeyError,
        ApprovalPendingError as ApprovalPendingError,
        CheckpointError as CheckpointError,
        RunLockedError as RunLockedError,
        StoreUnavailableError as StoreUnavailableError,
    )
    from smol_core.durable.retention import RetentionPolicy as RetentionPolicy, prune_runs as prune_runs
    from smol_core.durable.runner import check_run_id as check_run_id
    from smol_core.durable.sqlite_store import SQLiteStore as SQLiteStore
    from smol_core.durable.store import (
        CheckpointStore as CheckpointStore,
        Lease as Lease,
        RunRecord as RunRecord,
        StoredCheckpoint as StoredCheckpoint,
    )
    from smol_core.effects import (
        ModelCall as ModelCall,
        RunExtension as RunExtension,
        ToolEffect as ToolEffect,
    )
    from smol_core.errors import (
        AgentToolExecutionError as AgentToolExecutionError,
        BudgetExceededError as BudgetExceededError,
        ModelAPIError as ModelAPIError,
        SmolError as SmolError,
        TypeHintParsingException as TypeHintParsingException,
    )
    from smol_core.executors.base import (
        CodeOutput as CodeOutput,
        ExecutorUnavailableError as ExecutorUnavailableError,
        InterpreterError as InterpreterError,
    )
    from smol_core.executors.host.bundle import (
        bundle_digest as bundle_digest,
        bundle_frame as bundle_frame,
        loader_command as loader_command,
        worker_sources as worker_sources,
    )
    from smol_core.executors.host.driver import WorkerExecutor as WorkerExecutor
    from smol_core.executors.host.frames import ProtocolLimits as ProtocolLimits
    from smol_core.executors.host.link import (
        FramedLink as FramedLink,
        WorkerLink as WorkerLink,
    )
    from smol_core.executors.host.process import (
        TEMPLATE as TEMPLATE,
        WORKER_ENV as WORKER_ENV,
        WorkerProcess as WorkerProcess,
    )
    from smol_core.executors.local import LocalPythonExecutor as LocalPythonExecutor
    from smol_core.executors.worker.framing import (
        FrameReader as FrameReader,
        encode_message as encode_message,
    )
    from smol_core.executors.worker.protocol import ProtocolError as ProtocolError
    from smol_core.install_advice import install_hint as install_hint
    from smol_core.instrumentation import (
        Instrumentor as Instrumentor,
        SpanHandle as SpanHandle,
        SpanKind as SpanKind,
        add_instrumentor as add_instrumentor,
        instrumentors as instrumentors,
        remove_instrumentor as remove_instrumentor,
    )
    from smol_core.lazy_exports import lazy_exports as lazy_exports
    from smol_core.loading import (
        load_model as load_model,
        load_tools as load_tools,
    )
    from smol_core.memory import (
        ActionStep as ActionStep,
        FinalAnswerStep as FinalAnswerStep,
        PlanningStep as PlanningStep,
        ToolCall as ToolCall,
    )
    from smol_core.messages import (
        ChatMessage as ChatMessage,
        ChatMessageStreamDelta as ChatMessageStreamDelta,
        ChatMessageToolCall as ChatMessageToolCall,
        ChatMessageToolCallFunction as ChatMessageToolCallFunction,
        ChatMessageToolCallStreamDelta as ChatMessageToolCallStreamDelta,
        MessageRole as MessageRole,
        TokenUsage as TokenUsage,
        agglomerate_stream_deltas as agglomerate_stream_deltas,
        remove_content_after_stop_sequences as remove_content_after_stop_sequences,
    )
    from smol_core.models.api_model import (
        CONNECT_TIMEOUT as CONNECT_TIMEOUT,
        DEFAULT_TIMEOUT as DEFAULT_TIMEOUT,
        ApiModel as ApiModel,
    )
    from smol_core.models.base import Model as Model
    from smol_core.models.capabilities import ModelCapabilities as ModelCapabilities
    from smol_core.models.chat_completions import ChatCompletionsModel as ChatCompletionsModel
    from smol_core.models.detection import (
        CapabilityDetector as CapabilityDetector,
        DetectedCapabilities as DetectedCapabilities,
    )
    from smol_core.models.message_list import (
        TOOL_ROLE_CONVERSIONS as TOOL_ROLE_CONVERSIONS,
        get_clean_message_list as get_clean_message_list,
    )
    from smol_core.models.openai_format import model_supports_stop as model_supports_stop
    from smol_core.models.request import ModelRequest as ModelRequest
    from smol_core.models.retry import RetryPolicy as RetryPolicy
    from smol_core.models.schema_tool_calls import (
        sanitize_schema as sanitize_schema,
        tool_call_deltas as tool_call_deltas,
        tool_call_from_json as tool_call_from_json,
        tool_call_response_format as tool_call_response_format,
        tool_call_schema as tool_call_schema,
        tools_prompt as tools_prompt,
        with_system_note as with_system_note,
    )
    from smol_core.models.stop_filter import StopSequenceFilter as StopSequenceFilter
    from smol_core.models.tool_calls import (
        get_tool_json_schema as get_tool_json_schema,
        get_tool_json_schemas as get_tool_json_schemas,
        tool_calls_in as tool_calls_in,
    )
    from smol_core.network.address_policy import (
        ADDRESS_POLICY_ENV as ADDRESS_POLICY_ENV,
        AddressPolicy as AddressPolicy,
        AddressRefusedError as AddressRefusedError,
        AllowEntry as AllowEntry,
        AllowSetting as AllowSetting,
        address_class as address_class,
        check_url as check_url,
        literal_address as literal_address,
        refusal_message as refusal_message,
        resolve_host as resolve_host,
        url_refusal as url_refusal,
    )
    from smol_core.network.errors import (
        BlockedAddressError as BlockedAddressError,
        DownloadTooLargeError as DownloadTooLargeError,
        TooManyRedirectsError as TooManyRedirectsError,
    )
    from smol_core.network.guarded_http import (
        guarded_client as guarded_client,
        guarded_request as guarded_request,
        read_bounded as read_bounded,
    )
    from smol_core.plugins.hookspecs import hookimpl as hookimpl
    from smol_core.plugins.specs import (
        CheckpointStoreSpec as CheckpointStoreSpec,
        CommandSpec as CommandSpec,
        ExecutorSpec as ExecutorSpec,
        InstrumentorSpec as InstrumentorSpec,
        ModelSpec as ModelSpec,
        RunExtensionSpec as RunExtensionSpec,
        RunOptionSpec as RunOptionSpec,
        ToolSpec as ToolSpec,
        TransportSpec as TransportSpec,
        lazy as lazy,
    )
    from smol_core.prompting.grammar import code_action_grammar as code_action_grammar
    from smol_core.teams.errors import (
        MessageRefusedError as MessageRefusedError,
        MessageTooLargeError as MessageTooLargeError,
        MessagingError as MessagingError,
        PeerGoneError as PeerGoneError,
        UnknownRecipientError as UnknownRecipientError,
    )
    from smol_core.teams.identity import (
        AgentKeys as AgentKeys,
        Credentials as Credentials,
        TeamKeys as TeamKeys,
    )
    from smol_core.teams.launcher import AgentProcess as AgentProcess
    from smol_core.teams.message import (
        DEFAULT_MAX_MESSAGE_BYTES as DEFAULT_MAX_MESSAGE_BYTES,
        Message as Message,
        decode as decode,
        encode as encode,
    )
    from smol_core.teams.start_method import FORKSERVER_PRELOAD as FORKSERVER_PRELOAD
    from smol_core.teams.status import (
        Activity as Activity,
        PeerStatus as PeerStatus,
    )
    from smol_core.teams.transport import (
        DEFAULT_MAX_PENDING_BYTES_PER_SENDER as DEFAULT_MAX_PENDING_BYTES_PER_SENDER,
        DEFAULT_MAX_PENDING_PER_SENDER as DEFAULT_MAX_PENDING_PER_SENDER,
        MAX_REFUSALS_KEPT as MAX_REFUSALS_KEPT,
        Deduplicator as Deduplicator,
        Transport as Transport,
        accept_message as accept_message,
        sender_quota_error as sender_quota_error,
        wire_bytes as wire_bytes,
        wire_text as wire_text,
    )
    from smol_core.teams.worker import MAX_RESULT_BYTES as MAX_RESULT_BYTES
    from smol_core.terminal import (
        escape_controls as escape_controls,
        escape_line as escape_line,
    )
    from smol_core.tools.collection import ToolCollection as ToolCollection
    from smol_core.tools.decorator import (
        FunctionTool as FunctionTool,
        as_tool as as_tool,
        tool as tool,
    )
    from smol_core.tools.schema import (
        AUTHORIZED_TYPES as AUTHORIZED_TYPES,
        json_type_of as json_type_of,
        parse_google_docstring as parse_google_docstring,
    )
    from smol_core.tools.tool import (
        Tool as Tool,
        tool_from_code as tool_from_code,
        validate_tool_definition as validate_tool_definition,
    )
    from smol_core.untrusted_files import (
        UntrustedFileError as UntrustedFileError,
        loads_shaped as loads_shaped,
        untrusted_lines as untrusted_lines,
    )
