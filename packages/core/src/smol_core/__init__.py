"""smol: agents that think in code.

Public names are imported on first use (PEP 562), so `import smol_core` costs a few milliseconds and
a command-line tool that only lists plugins never loads the agent loop.
"""

from typing import TYPE_CHECKING as _TYPE_CHECKING, Any as _Any

from smol_core.lazy_exports import lazy_exports as _lazy_exports
from smol_core.version import __version__ as __version__

_EXPORTS: dict[str, str] = {
    # agents
    "MultiStepAgent": "smol_core.agents.multi_step",
    "CodeAgent": "smol_core.agents.code_agent",
    "ToolCallingAgent": "smol_core.agents.tool_calling_agent",
    "RunResult": "smol_core.agents.result",
    "RunBudget": "smol_core.agents.budget",
    "ActionOutput": "smol_core.agents.events",
    "ToolOutput": "smol_core.agents.events",
    "PromptTemplates": "smol_core.agents.prompts",
    "PlanningPromptTemplate": "smol_core.agents.prompts",
    "ManagedAgentPromptTemplate": "smol_core.agents.prompts",
    "FinalAnswerPromptTemplate": "smol_core.agents.prompts",
    "EMPTY_PROMPT_TEMPLATES": "smol_core.agents.prompts",
    "populate_template": "smol_core.agents.prompts",
    # agent output types
    "AgentType": "smol_core.agent_types",
    "AgentText": "smol_core.agent_types",
    "AgentImage": "smol_core.agent_types",
    "AgentAudio": "smol_core.agent_types",
    "handle_agent_input_types": "smol_core.agent_types",
    "handle_agent_output_types": "smol_core.agent_types",
    # memory
    "AgentMemory": "smol_core.memory",
    "ActionStep": "smol_core.memory",
    "PlanningStep": "smol_core.memory",
    "TaskStep": "smol_core.memory",
    "SystemPromptStep": "smol_core.memory",
    "FinalAnswerStep": "smol_core.memory",
    "MemoryStep": "smol_core.memory",
    "ToolCall": "smol_core.memory",
    "CallbackRegistry": "smol_core.memory",
    # messages and models
    "ChatMessage": "smol_core.messages",
    "ChatMessageStreamDelta": "smol_core.messages",
    "ChatMessageToolCall": "smol_core.messages",
    "ChatMessageToolCallFunction": "smol_core.messages",
    "MessageRole": "smol_core.messages",
    "TokenUsage": "smol_core.messages",
    "Timing": "smol_core.messages",
    "agglomerate_stream_deltas": "smol_core.messages",
    "get_clean_message_list": "smol_core.models.message_list",
    "Model": "smol_core.models.base",
    "ApiModel": "smol_core.models.api_model",
    "ModelCapabilities": "smol_core.models.capabilities",
    "ModelRequest": "smol_core.models.request",
    "load_model": "smol_core.loading",
    "REMOVE_PARAMETER": "smol_core.models.options",
    "MODEL_REGISTRY": "smol_core.models.model_registry",
    "parse_json_if_needed": "smol_core.models.tool_calls",
    "CODEAGENT_RESPONSE_FORMAT": "smol_core.agents.code_agent",
    # smolagents' utilities and its CLI's function
    "create_agent_gradio_app_template": "smol_core.agents.app_template",
    "extract_code_from_text": "smol_core.agents.parsing",
    "parse_code_blobs": "smol_core.agents.parsing",
    "truncate_content": "smol_core.agents.parsing",
    "is_valid_name": "smol_core.tools.validation",
    "make_init_file": "smol_core.source_code",
    "run_smolagent": "smol_core.cli.smolagents_cli",
    "load_executor": "smol_core.loading",
    "load_tools": "smol_core.loading",
    "load_tool": "smol_core.loading",
    "load_transport": "smol_core.loading",
    # tools
    "Tool": "smol_core.tools.tool",
    "tool": "smol_core.tools.decorator",
    "FinalAnswerTool": "smol_core.tools.base_tools",
    "PythonInterpreterTool": "smol_core.tools.base_tools",
    "UserInputTool": "smol_core.tools.base_tools",
    "ToolCollection": "smol_core.tools.collection",
    "AUTHORIZED_TYPES": "smol_core.tools.schema",
    "SpeechToTextTool": "smol_core.tools.speech_to_text",
    "SafeSerializer": "smol_core.serialization",
    "SerializationError": "smol_core.serialization",
    # teams of agents
    "SendMessageTool": "smol_core.teams.tools",
    "ReceiveMessagesTool": "smol_core.teams.tools",
    "Message": "smol_core.teams.message",
    "Transport": "smol_core.teams.transport",
    "AgentSettings": "smol_core.agents.settings",
    "Team": "smol_core.teams.team",
    "TeamResult": "smol_core.teams.team",
    "run_agents": "smol_core.teams.team",
    # executors
    "LocalPythonExecutor": "smol_core.executors.local",
    "PythonExecutor": "smol_core.executors.base",
    "RemotePythonExecutor": "smol_core.executors.remote",
    "CodeOutput": "smol_core.executors.base",
    "InterpreterError": "smol_core.executors.base",
    "ExecutionTimeoutError": "smol_core.executors.base",
    "BASE_BUILTIN_MODULES": "smol_core.executors.base",
    # smolagents' functional interpreter API, run by the sandbox (executors/evaluate.py)
    "evaluate_python_code": "smol_core.executors.evaluate",
    "evaluate_ast": "smol_core.executors.evaluate",
    "evaluate_boolop": "smol_core.executors.evaluate",
    "evaluate_condition": "smol_core.executors.evaluate",
    "evaluate_delete": "smol_core.executors.evaluate",
    "evaluate_subscript": "smol_core.executors.evaluate",
    "BASE_PYTHON_TOOLS": "smol_core.executors.smolagents_support",
    "DANGEROUS_FUNCTIONS": "smol_core.executors.smolagents_support",
    "DANGEROUS_MODULES": "smol_core.executors.smolagents_support",
    "PrintContainer": "smol_core.executors.smolagents_support",
    "check_import_authorized": "smol_core.executors.smolagents_support",
    "fix_final_answer_code": "smol_core.executors.smolagents_support",
    "get_safe_module": "smol_core.executors.smolagents_support",
    "timeout": "smol_core.executors.smolagents_support",
    # monitoring
    "AgentLogger": "smol_core.monitoring",
    "LogLevel": "smol_core.monitoring",
    "Monitor": "smol_core.monitoring",
    # errors (every one smol raises, with their tree: the `exceptions` module)
    "exceptions": "smol_core.exceptions",
    "AgentError": "smol_core.errors",
    "AgentParsingError": "smol_core.errors",
    "AgentExecutionError": "smol_core.errors",
    "AgentMaxStepsError": "smol_core.errors",
    "AgentGenerationError": "smol_core.errors",
    "AgentToolCallError": "smol_core.errors",
    "AgentToolExecutionError": "smol_core.errors",
    "SmolError": "smol_core.errors",
    "PluginNotFoundError": "smol_core.errors",
    "PluginConflictError": "smol_core.errors",
    "PluginArgumentError": "smol_core.errors",
    "ModelAPIError": "smol_core.errors",
    "BudgetExceededError": "smol_core.errors",
    # plugins
    "hookimpl": "smol_core.plugins.hookspecs",
    "ModelSpec": "smol_core.plugins.specs",
    "ExecutorSpec": "smol_core.plugins.specs",
    "ToolSpec": "smol_core.plugins.specs",
    "CommandSpec": "smol_core.plugins.specs",
    "TransportSpec": "smol_core.plugins.specs",
    "lazy": "smol_core.plugins.specs",
    "get_registry": "smol_core.plugins.registry",
}


def _smolagents_name(name: str) -> _Any:
    """A smolagents name smol's table lacks: a plugin's class when installed, else an error naming
    what to do."""
    from smol_core.smolagents_names import resolve

    return resolve(name)


__getattr__, __dir__, __all__ = _lazy_exports(globals(), _EXPORTS, otherwise=_smolagents_name)


if _TYPE_CHECKING:
    from smol_core import exceptions
    from smol_core.agent_types import (
        AgentAudio,
        AgentImage,
        AgentText,
        AgentType,
        handle_agent_input_types,
        handle_agent_output_types,
    )
    from smol_core.agents.app_template import create_agent_gradio_app_template
    from smol_core.agents.budget import RunBudget
    from smol_core.agents.code_agent import CODEAGENT_RESPONSE_FORMAT, CodeAgent
    from smol_core.agents.events import ActionOutput, ToolOutput
    from smol_core.agents.multi_step import MultiStepAgent
    from smol_core.agents.parsing import extract_code_from_text, parse_code_blobs, truncate_content
    from smol_core.agents.prompts import (
        EMPTY_PROMPT_TEMPLATES,
        FinalAnswerPromptTemplate,
        ManagedAgentPromptTemplate,
        PlanningPromptTemplate,
        PromptTemplates,
        populate_template,
    )
    from smol_core.agents.result import RunResult
    from smol_core.agents.settings import AgentSettings
    from smol_core.agents.tool_calling_agent import ToolCallingAgent
    from smol_core.cli.smolagents_cli import run_smolagent
    from smol_core.errors import (
        AgentError,
        AgentExecutionError,
        AgentGenerationError,
        AgentMaxStepsError,
        AgentParsingError,
        AgentToolCallError,
        AgentToolExecutionError,
        BudgetExceededError,
        ModelAPIError,
        PluginArgumentError,
        PluginConflictError,
        PluginNotFoundError,
        SmolError,
    )
    from smol_core.executors.base import (
        BASE_BUILTIN_MODULES,
        CodeOutput,
        ExecutionTimeoutError,
        InterpreterError,
        PythonExecutor,
    )
    from smol_core.executors.evaluate import (
        evaluate_ast,
        evaluate_boolop,
        evaluate_condition,
        evaluate_delete,
        evaluate_python_code,
        evaluate_subscript,
    )
    from smol_core.executors.local import LocalPythonExecutor
    from smol_core.executors.remote import RemotePythonExecutor
    from smol_core.executors.smolagents_support import (
        BASE_PYTHON_TOOLS,
        DANGEROUS_FUNCTIONS,
        DANGEROUS_MODULES,
        PrintContainer,
        check_import_authorized,
        fix_final_answer_code,
        get_safe_module,
        timeout,
    )
    from smol_core.loading import load_executor, load_model, load_tool, load_tools, load_transport
    from smol_core.memory import (
        ActionStep,
        AgentMemory,
        CallbackRegistry,
        FinalAnswerStep,
        MemoryStep,
        PlanningStep,
        SystemPromptStep,
        TaskStep,
        ToolCall,
    )
    from smol_core.messages import (
        ChatMessage,
        ChatMessageStreamDelta,
        ChatMessageToolCall,
        ChatMessageToolCallFunction,
        MessageRole,
        Timing,
        TokenUsage,
        agglomerate_stream_deltas,
    )
    from smol_core.models.api_model import ApiModel
    from smol_core.models.base import Model
    from smol_core.models.capabilities import ModelCapabilities
    from smol_core.models.message_list import get_clean_message_list
    from smol_core.models.model_registry import MODEL_REGISTRY
    from smol_core.models.options import REMOVE_PARAMETER
    from smol_core.models.request import ModelRequest
    from smol_core.models.tool_calls import parse_json_if_needed
    from smol_core.monitoring import AgentLogger, LogLevel, Monitor
    from smol_core.plugins.hookspecs import hookimpl
    from smol_core.plugins.registry import get_registry
    from smol_core.plugins.specs import CommandSpec, ExecutorSpec, ModelSpec, ToolSpec, TransportSpec, lazy
    from smol_core.serialization import SafeSerializer, SerializationError
    from smol_core.source_code import make_init_file
    from smol_core.teams.message import Message
    from smol_core.teams.team import Team, TeamResult, run_agents
    from smol_core.teams.tools import ReceiveMessagesTool, SendMessageTool
    from smol_core.teams.transport import Transport
    from smol_core.tools.base_tools import FinalAnswerTool, PythonInterpreterTool, UserInputTool
    from smol_core.tools.collection import ToolCollection
    from smol_core.tools.decorator import tool
    from smol_core.tools.schema import AUTHORIZED_TYPES
    from smol_core.tools.speech_to_text import SpeechToTextTool
    from smol_core.tools.tool import Tool
    from smol_core.tools.validation import is_valid_name
