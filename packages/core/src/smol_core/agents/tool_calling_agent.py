"""`ToolCallingAgent`: the model calls tools with JSON arguments (native tool calling where the model has it)."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import json
from collections.abc import Callable, Generator, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, cast

from smol_core import instrumentation
from smol_core.agent_types import AgentImage, handle_agent_input_types, handle_agent_output_types
from smol_core.agents.events import ActionOutput, ToolOutput
from smol_core.agents.multi_step import MultiStepAgent, StreamEvent
from smol_core.agents.parsing import as_text, parse_json_blob, reply_text, truncate_content
from smol_core.agents.prompts import PromptTemplates, populate_template, tool_calling_agent_templates
from smol_core.agents.tool_wrappers import managed_agent_callable
from smol_core.effects import ToolEffect
from smol_core.errors import (
    AgentError,
    AgentExecutionError,
    AgentGenerationError,
    AgentParsingError,
    AgentToolCallError,
    AgentToolExecutionError,
    AgentUnknownToolError,
    BudgetExceededError,
)
from smol_core.json_limits import JSONLimitError, parse_arguments
from smol_core.memory import ActionStep, ToolCall
from smol_core.messages import ChatMessage, ChatMessageStreamDelta, MessageRole, agglomerate_stream_deltas
from smol_core.models.base import Model
from smol_core.monitoring import LogLevel
from smol_core.prompting.tool_signatures import compact_tool_calling_prompt
from smol_core.tools.time_limit import tool_time_limit
from smol_core.tools.tool import Tool

_PLAIN_TYPES = (str, int, float, bool, type(None), list, dict, tuple)


class ToolCallingAgent(MultiStepAgent):
    """An agent whose actions are tool calls; several calls in one reply run in parallel."""

    def __init__(
        self,
        tools: Iterable[Tool | Callable[..., Any]],
        model: Model | Callable[..., Any],
        prompt_templates: PromptTemplates | dict[str, Any] | None = None,
        planning_interval: int | None = None,
        stream_outputs: bool = False,
        max_tool_threads: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            tools=tools,
            model=model,
            prompt_templates=prompt_templates,
            planning_interval=planning_interval,
            **kwargs,
        )
        self.stream_outputs = stream_outputs
        self.max_tool_threads = max_tool_threads

    @classmethod
    def from_folder(cls, folder: str, **kwargs: Any) -> MultiStepAgent:
        """`MultiStepAgent.from_folder`; a folder whose `agent.json` names no class (smolagents up to
        1.20 wrote none) loads as this class, as in smolagents."""
        from smol_core.agents.serialization import agent_from_folder

        return cast(MultiStepAgent, agent_from_folder(folder, agent_class=cls, **kwargs))

    def default_prompt_templates(self) -> PromptTemplates:
        return tool_calling_agent_templates()

    @property
    def tools_and_managed_agents(self) -> list[Any]:
        return [*self.tools.values(), *self.managed_agents.values()]

    def initialize_system_prompt(self) -> str:
        # one JSON line per tool, not smolagents' text: see prompting/tool_signatures.py for why
        tools = "\n".join(compact_tool_calling_prompt(tool) for tool in self.tools.values())
        variables: dict[str, Any] = {
            "tools": tools,
            "managed_agents": self._managed_agents_section(),
            "custom_instructions": self._custom_instructions(),
        }
        template = self.prompt_templates["system_prompt"]
        if "{%" in template:
            variables = {
                **variables,
                "tools": self.tools,
                "managed_agents": self.managed_agents,
                "custom_instructions": self.instructions or "",
            }
        return populate_template(template, variables)

    def provide_final_answer(self, task: str, images: list[Any] | None = None) -> ChatMessage:
        """The best answer from the memory when the step budget runs out, asked for as a call of
        `final_answer` with text where the model calls tools: the answer then comes clean, as its
        argument. Asked for as plain text, a model that spent the run calling tools tends to write one
        more call (or, if small, an imitation of the earlier ones) instead of an answer."""
        if not self.model.capabilities.tool_calling:
            return super().provide_final_answer(task, images)
        try:
            message = self.model.generate(
                self._final_answer_messages(task, images), tools_to_call_from=[_TextAnswer()]
            )
        except BudgetExceededError:
            raise  # the run stops on its budget: not the model's failure
        except Exception:
            return super().provide_final_answer(task, images)
        for call in message.tool_calls or []:
            if call.function.name == "final_answer":
                try:
                    arguments = parse_arguments(call.function.arguments)
                except JSONLimitError:
                    return super().provide_final_answer(task, images)
                answer = arguments.get("answer", arguments) if isinstance(arguments, dict) else arguments
                text = answer if isinstance(answer, str) else json.dumps(answer, default=str)
                return ChatMessage(
                    MessageRole.ASSISTANT, text, raw=message.raw, token_usage=message.token_usage
                )
        return message if message.text else super().provide_final_answer(task, images)

    # --- one step ----------------------------------------------------------------------------

    def _callable_schemas(self) -> list[Any]:
        return [*self.tools.values(), *(_AgentAsTool(agent) for agent in self.managed_agents.values())]

    def _generate(self, memory_step: ActionStep) -> Generator[StreamEvent, None, ChatMessage]:
        messages = self.write_memory_to_messages()
        memory_step.model_input_messages = messages
        tools = self._callable_schemas() if self.model.capabilities.tool_calling else None
        stop = ["Observation:", "Calling tools:"]
        try:
            if self.stream_outputs:
                deltas: list[ChatMessageStreamDelta] = []
                for delta in self.model.generate_stream(
                    messages, stop_sequences=stop, tools_to_call_from=tools, **self._grammar_keywords()
                ):
                    deltas.append(delta)
                    yield delta
                return agglomerate_stream_deltas(deltas)
            return self.model.generate(
                messages, stop_sequences=stop, tools_to_call_from=tools, **self._grammar_keywords()
            )
        except BudgetExceededError:
            raise  # the run stops on its budget: not the model's failure
        except Exception as error:
            raise AgentGenerationError(
                f"The model failed to generate a reply: {error}", self.logger
            ) from error

    def _step_stream(self, memory_step: ActionStep) -> Generator[StreamEvent]:
        message = yield from self._generate(memory_step)
        memory_step.token_usage = message.token_usage
        text: str | None = None
        try:
            text = reply_text(message)
            self.logger.log_markdown(
                content=text or (message.raw if isinstance(message.raw, str) else ""),
                title="Output message of the LLM:",
                level=LogLevel.DEBUG,
            )
            calls = self._read_tool_calls(message, text)
        except AgentError:
            # The reply is hostile or malformed: keep only what is safe to show and to serialize.
            memory_step.model_output_message = ChatMessage(
                MessageRole.ASSISTANT, text, token_usage=message.token_usage
            )
            memory_step.model_output = text
            raise
        memory_step.model_output_message = message
        memory_step.model_output = text
        outputs = yield from self._process_checked_calls(calls, memory_step)
        images = [o.output.to_raw() for o in outputs if isinstance(o.output, AgentImage)]
        if images:  # a vision model sees what the tools returned in its next step
            memory_step.observations_images = images
        final = [o for o in outputs if o.is_final_answer]
        if final:
            if len(calls) > 1:  # smolagents' words: prompts and callers written for it match them
                raise AgentExecutionError(
                    "If you want to return an answer, please do not perform any other tool calls than "
                    "the final answer tool call!",
                    self.logger,
                )
            memory_step.action_output = final[0].output
            yield ActionOutput(output=final[0].output, is_final_answer=True)
        else:
            yield ActionOutput(output=None, is_final_answer=False)

    def process_tool_calls(
        self, chat_message: ChatMessage, memory_step: ActionStep
    ) -> Generator[ToolCall | ToolOutput, None, None]:
        """Run the tool calls of `chat_message` as a step does, and record them in `memory_step`.

        smolagents' hook, with its signature: each call is yielded (checked: a name that is text,
        arguments within the JSON bounds), then each output as the calls run (in parallel when
        there are several); `memory_step` gets the calls and the observations, one line each."""
        calls = [
            self._checked_call(call.function.name, call.function.arguments, call.id)
            for call in chat_message.tool_calls or []
        ]
        yield from self._process_checked_calls(calls, memory_step)

    def _process_checked_calls(
        self, calls: list[ToolCall], memory_step: ActionStep
    ) -> Generator[ToolCall | ToolOutput, None, list[ToolOutput]]:
        memory_step.tool_calls = calls
        yield from calls
        outputs: list[ToolOutput] = []
        for output in self._run_tool_calls(calls):
            outputs.append(output)
            yield output
        memory_step.observations = "\n".join(o.observation for o in outputs)
        return outputs

    def _read_tool_calls(self, message: ChatMessage, text: str) -> list[ToolCall]:
        """The calls of a reply, checked: a name that is text, arguments within the JSON bounds."""
        if message.tool_calls:
            return [
                self._checked_call(tc.function.name, tc.function.arguments, tc.id)
                for tc in message.tool_calls
            ]
        try:
            blob, _thought = parse_json_blob(text)
        except JSONLimitError as error:
            raise AgentParsingError(f"Your tool call could not be read: {error}", self.logger) from error
        except ValueError as error:
            raise AgentParsingError(
                'Your reply had no tool call. Reply with a thought, then:\nAction:\n{"name": "tool_name", "arguments": {...}}\n'
                f"Your reply was:\n{text[:500]}",
                self.logger,
            ) from error
        name = blob.get("name") or blob.get("tool_name") or blob.get("tool")
        if not isinstance(name, str):
            if "{" in _thought:  # the call itself did not parse: an object nested in it did
                raise AgentParsingError(_invalid_blob_message(text[text.index("{") :]), self.logger)
            raise AgentParsingError(f'The tool call needs a "name": {json.dumps(blob)[:300]}', self.logger)
        arguments = blob.get("arguments", blob.get("args", {}))
        return [self._checked_call(name, arguments, f"call_{len(self.memory.steps)}")]

    def _checked_call(self, name: Any, arguments: Any, call_id: Any) -> ToolCall:
        label = repr(name[:100]) if isinstance(name, str) and name else "your tool call"
        try:
            parsed = parse_arguments(arguments)
        except JSONLimitError as error:
            raise AgentToolCallError(
                f"The arguments of {label} could not be read: {error}", self.logger
            ) from error
        if not isinstance(name, str) or not name:
            raise AgentParsingError(
                "A tool call needs the tool's name as a non-empty string, got "
                f"{'an empty string' if name == '' else f'a value of type {type(name).__name__}'}. "
                'Call a tool as {"name": "tool_name", "arguments": {...}}.',
                self.logger,
            )
        if not isinstance(call_id, str | int) or isinstance(call_id, bool):
            call_id = f"call_{len(self.memory.steps)}"
        return ToolCall(name, parsed, str(call_id))

    def _run_tool_calls(self, calls: list[ToolCall]) -> Iterable[ToolOutput]:
        """Run the calls (in parallel when there are several) and yield their outputs in order."""
        for call in calls:
            self.logger.log_code(
                title=f"Calling tool: {call.name}",
                content=json.dumps(call.arguments, default=str),
                level=LogLevel.INFO,
            )
        if len(calls) == 1:
            yield self._run_one(calls[0])
            return
        # the pool's threads do not inherit the step's context: each call runs in a copy of it (the
        # run it belongs to, and so its door), and its span takes the step's as its parent
        context = contextvars.copy_context()
        run_one_here = functools.partial(self._run_one, trace_parent=instrumentation.capture())

        def run_one(call: ToolCall) -> ToolOutput:
            return context.copy().run(run_one_here, call)

        with ThreadPoolExecutor(max_workers=self.max_tool_threads) as pool:
            yield from pool.map(run_one, calls)

    def _run_one(self, call: ToolCall, trace_parent: Any = None) -> ToolOutput:
        attributes = _tool_attributes(self, call) if instrumentation.active() else None
        with instrumentation.span("tool", _traced_name(self, call), attributes, parent=trace_parent) as scope:
            result = self.execute_tool_call(call.name, call.arguments)
            scope.set("tool.result", result)
        is_final = call.name == "final_answer"
        if is_final:
            observation = as_text(result)  # as smolagents records it: the answer itself
        elif isinstance(result, _PLAIN_TYPES):
            observation = truncate_content(as_text(result))
        else:
            key = f"{type(result).__name__.lower()}_{sum(1 for k in self.state if k.startswith(type(result).__name__.lower())) + 1}"
            self.state[key] = result
            # smolagents keeps the latest image and audio as "image.png" / "audio.mp3": code and prompts
            # written for it name them so, and a final_answer("image.png") returns the image itself
            smolagents_key = _SMOLAGENTS_STATE_KEYS.get(type(result).__name__)
            if smolagents_key is not None:
                self.state[smolagents_key] = result
            observation = f"Stored '{key}' in memory."
        self.logger.print(f"Observations: {observation}", level=LogLevel.INFO)
        return ToolOutput(
            id=call.id, output=result, is_final_answer=is_final, observation=observation, tool_call=call
        )

    def _substitute_state_variables(self, arguments: Any) -> Any:
        """An argument that names a value the agent holds (e.g. "image_1") is replaced by that value."""
        if isinstance(arguments, dict):
            return {
                k: self.state[v] if isinstance(v, str) and v in self.state else v
                for k, v in arguments.items()
            }
        if isinstance(arguments, str) and arguments in self.state:
            return self.state[arguments]
        return arguments

    def execute_tool_call(self, tool_name: str, arguments: Any) -> Any:
        available = {**self.tools, **self.managed_agents}
        if tool_name not in available:
            raise AgentUnknownToolError(
                f"Unknown tool {tool_name!r}; the tools are: {', '.join(available)}.", self.logger
            )
        target: Any = available[tool_name]
        door = self._run().door  # every call goes through the run's door (effects.py)
        if tool_name in self.managed_agents:
            # the model hands over a task, never run() options
            target = managed_agent_callable(target, door)
        arguments = self._substitute_state_variables(arguments)
        try:
            if isinstance(target, Tool):
                tool, limit = target, tool_time_limit(target, self.tool_timeout_seconds)

                def run_tool() -> Any:
                    if isinstance(arguments, dict):
                        _, kwargs = handle_agent_input_types(**arguments)
                        result = tool(sanitize_inputs_outputs=True, **kwargs)
                    else:
                        (raw,), _ = handle_agent_input_types(arguments)
                        result = tool(raw, sanitize_inputs_outputs=True)
                    if inspect.isawaitable(result):
                        result = asyncio.run(_await(result))
                    return result

                def call_tool() -> Any:
                    return self.tool_budget.call(run_tool, limit, tool_name)

                effect = ToolEffect(
                    tool_name,
                    arguments,
                    "tool",
                    bool(getattr(tool, "idempotent", False)),
                    bool(getattr(tool, "requires_approval", False)),
                )
                result = door.tool_call(effect, call_tool)
                # an image or audio result displays (UI, notebook) and reaches the model as an image
                return handle_agent_output_types(result, tool.output_type)
            if isinstance(arguments, dict):
                return target(**arguments)
            return target(arguments)
        except AgentToolCallError as error:
            raise AgentToolCallError(f"{error} {_usage(target)}", self.logger) from error
        except AgentError:
            raise
        except TypeError as error:
            raise AgentToolCallError(
                f"Wrong arguments for {tool_name!r}: {error}. {_usage(target)}", self.logger
            ) from error
        except Exception as error:
            raise AgentToolExecutionError(
                f"Tool {tool_name!r} failed: {type(error).__name__}: {error}", self.logger
            ) from error


_SMOLAGENTS_STATE_KEYS = {"AgentImage": "image.png", "AgentAudio": "audio.mp3"}


_BLOB_CHECK_CHARS = 100_000


def _invalid_blob_message(blob: str) -> str:
    """Why a JSON tool call does not parse, in smolagents' words (which prompts and callers match)."""
    try:
        json.loads(blob[:_BLOB_CHECK_CHARS])  # the reason only: a reply may be long
        reason = "it is not one JSON object"
    except json.JSONDecodeError as error:
        reason = f"{error.msg} at line {error.lineno}, column {error.colno}"
    except (ValueError, RecursionError) as error:
        reason = type(error).__name__
    return (
        "Error while parsing tool call from model output: The JSON blob you used is invalid due to the "
        f"following error: {reason}. JSON blob was: {blob[:300]}"
    )


def _traced_name(agent: ToolCallingAgent, call: ToolCall) -> str:
    """The tool's name for a trace: the model wrote it, so a name that is no tool's (any text at
    all) is content, and is not recorded as given."""
    return call.name if call.name in agent.tools or call.name in agent.managed_agents else UNKNOWN_TOOL


def _tool_attributes(agent: ToolCallingAgent, call: ToolCall) -> dict[str, Any]:
    target = agent.tools.get(call.name) or agent.managed_agents.get(call.name)
    return {
        "tool.name": _traced_name(agent, call),
        "tool.call_id": call.id,
        "tool.description": getattr(target, "description", None),
        "tool.arguments": call.arguments,
    }


UNKNOWN_TOOL = "(unknown tool)"


async def _await(awaitable: Any) -> Any:
    return await awaitable


def _usage(target: Any) -> str:
    inputs = getattr(target, "inputs", None)
    if isinstance(inputs, dict):
        return "It takes: " + ", ".join(f"{k} ({v.get('type')})" for k, v in inputs.items()) + "."
    return "It takes: task (string), additional_args (object, optional)."


class _TextAnswer:
    """`final_answer` taking text, for the answer asked for at max steps (text, as in smolagents):
    with the tool's own "any" type, a small model fills the argument with an imitation of its calls."""

    name = "final_answer"
    description = "Gives the final answer to the task."
    inputs = {"answer": {"type": "string", "description": "The answer to the task, in words."}}
    output_type = "string"

    def to_tool_calling_schema(self) -> dict[str, Any]:
        return Tool.to_tool_calling_schema(self)  # type: ignore[arg-type]


class _AgentAsTool:
    """A managed agent seen through a tool schema, for models with native tool calling."""

    def __init__(self, agent: MultiStepAgent) -> None:
        self.name = agent.name
        self.description = agent.description
        self.inputs = {
            "task": {"type": "string", "description": "The task for this team member, in plain words."},
            "additional_args": {"type": "object", "description": "Values to hand over.", "nullable": True},
        }
        self.output_type = "string"

    def to_tool_calling_schema(self) -> dict[str, Any]:
        return Tool.to_tool_calling_schema(self)  # type: ignore[arg-type]

    def to_tool_calling_prompt(self) -> str:
        return Tool.to_tool_calling_prompt(self)  # type: ignore[arg-type]
