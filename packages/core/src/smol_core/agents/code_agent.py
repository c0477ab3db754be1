"""`CodeAgent`: the model writes Python; a sandboxed executor runs it."""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Iterable
from typing import Any, cast

from smol_core import instrumentation
from smol_core.agent_types import AgentImage, handle_agent_output_types
from smol_core.agents.assignment_check import check_no_tool_rebinding
from smol_core.agents.error_heading import with_failing_line
from smol_core.agents.events import ActionOutput
from smol_core.agents.multi_step import MultiStepAgent, StreamEvent
from smol_core.agents.parsing import (
    as_text,
    extract_code_from_text,
    parse_code_blobs,
    reply_text,
    truncate_content,
)
from smol_core.agents.prompts import (
    PromptTemplates,
    code_agent_templates,
    compact_code_agent_templates,
    populate_template,
)
from smol_core.agents.run_state import RunState, current_run
from smol_core.agents.tool_wrappers import managed_agent_callable, tool_callable
from smol_core.errors import AgentExecutionError, AgentGenerationError, AgentParsingError, BudgetExceededError
from smol_core.executors.base import BASE_BUILTIN_MODULES, CodeOutput, InterpreterError, PythonExecutor
from smol_core.executors.smolagents_support import fix_final_answer_code
from smol_core.memory import ActionStep, ToolCall
from smol_core.messages import ChatMessage, ChatMessageStreamDelta, agglomerate_stream_deltas
from smol_core.models.base import Model
from smol_core.monitoring import LogLevel
from smol_core.prompting.answer_form import refuse_code_as_answer
from smol_core.prompting.draft_certainty import least_likely_choice, token_logprobs
from smol_core.prompting.drafts import Draft, DraftVote
from smol_core.prompting.mode import ActionFormat
from smol_core.prompting.strategy import PromptFacts, PromptingStrategy, strategy_for
from smol_core.tools.tool import Tool

CODEAGENT_RESPONSE_FORMAT: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {
        "name": "ThoughtAndCodeAnswer",
        "schema": {
            "type": "object",
            "properties": {
                "thought": {"type": "string", "description": "A short thought about what to do next."},
                "code": {"type": "string", "description": "Python code to run."},
            },
            "required": ["thought", "code"],
            "additionalProperties": False,
        },
        "strict": True,
    },
}

STRUCTURED_OUTPUT_INSTRUCTIONS = """
Reply with a JSON object with two keys: "thought" (a short thought) and "code" (Python code to run), for example:
{"thought": "I compute it.", "code": "result = 7 * (3 + 4)\\nfinal_answer(result)"}
"""


class CodeAgent(MultiStepAgent):
    """An agent whose actions are Python code, run by an executor chosen by name (`executor_type`).

    Parameters are smolagents', plus `answer_drafts`: how many answers to draft per step and
    vote on (self-consistency). None: 3 for a small model without tools (`ModelCapabilities.small`),
    1 otherwise. It needs `stream_outputs=False` and applies only to agents without tools, whose
    code only computes.

    How the model is prompted (compact prompt, worked examples, grammar, drafts) is the business of
    its prompting strategy (`prompting`, from `smol_core.prompting`); the agent asks it.
    """

    def __init__(
        self,
        tools: Iterable[Tool | Callable[..., Any]],
        model: Model | Callable[..., Any],
        prompt_templates: PromptTemplates | dict[str, Any] | None = None,
        additional_authorized_imports: list[str] | None = None,
        planning_interval: int | None = None,
        executor_type: str = "local",
        executor_kwargs: dict[str, Any] | None = None,
        max_print_outputs_length: int | None = None,
        stream_outputs: bool = False,
        use_structured_outputs_internally: bool | None = None,
        code_block_tags: tuple[str, str] | str | None = None,
        executor: PythonExecutor | None = None,
        answer_drafts: int | None = None,
        **kwargs: Any,
    ) -> None:
        if answer_drafts is not None and answer_drafts < 1:
            raise ValueError(f"answer_drafts must be at least 1, got {answer_drafts}")
        self.answer_drafts = answer_drafts
        self.additional_authorized_imports = list(additional_authorized_imports or [])
        self.authorized_imports = sorted(set(BASE_BUILTIN_MODULES) | set(self.additional_authorized_imports))
        self.max_print_outputs_length = max_print_outputs_length
        self._use_structured_outputs_internally = use_structured_outputs_internally
        self.code_block_tags = _code_block_tags(code_block_tags)
        self._custom_system_prompt = bool(prompt_templates and prompt_templates.get("system_prompt"))
        super().__init__(
            tools=tools,
            model=model,
            prompt_templates=prompt_templates,
            planning_interval=planning_interval,
            **kwargs,
        )
        self.stream_outputs = stream_outputs
        if (
            stream_outputs
            and type(self.model).generate_stream is Model.generate_stream
            and type(self.model).request_stream is Model.request_stream
            and not self.model.capabilities.streaming
        ):
            raise ValueError("stream_outputs=True needs a model that can stream.")
        self.executor_type = executor_type
        self.executor_kwargs = dict(executor_kwargs or {})
        self._executor = executor
        self._executor_given = executor is not None  # a copy cannot make another like it (fresh_copy)
        self._executor_owner: RunState | None = None
        if executor is None:  # an unknown name fails here, as in smolagents, not at the first run
            from smol_core.plugins.registry import get_registry

            get_registry().executor(executor_type)

    _repeat_tool_calls = False

    @property
    def use_structured_outputs_internally(self) -> bool:
        """Constrained decoding of every reply into a well-formed action.

        None (the default) lets the model's capabilities decide: on for a model that decodes under a
        grammar (the embedded llama.cpp model: without it a small model writes prose instead of code),
        off otherwise, as in smolagents. This is the one place that decides, for the Python API
        and the CLI alike; an explicit True or False always wins.
        """
        chosen = self._use_structured_outputs_internally
        return bool(self.model.capabilities.grammar) if chosen is None else chosen

    @property
    def _json_actions(self) -> bool:
        """Structured outputs as JSON `{thought, code}`, unless the model decodes under a grammar,
        which keeps the plain-text format (see `prompting/grammar.py`)."""
        return self.use_structured_outputs_internally and not self.model.capabilities.grammar

    @property
    def prompting(self) -> PromptingStrategy:
        """How this agent prompts its model (`smol_core.prompting`): chosen from the model's
        capabilities as known now (a server may report them late), and the generic one whenever
        the user gave their own system prompt, which was written for the generic format."""
        return strategy_for(self.model, custom_system_prompt=self._custom_system_prompt)

    def _prompt_facts(self) -> PromptFacts:
        """What the prompting strategy is told of this agent, with each question."""
        return PromptFacts(
            tools=self.tools,
            team=bool(self.managed_agents),
            task=self.task,
            code_block_tags=self.code_block_tags,
            answer_drafts=self.answer_drafts,
        )

    def prompting_mode(self, short: bool = False) -> str:
        """How the model is prompted, and why; `short`: the few words each run opens with (the whole
        line, with its reason, in verbose output)."""
        actions: ActionFormat = (
            "json" if self._json_actions else "grammar" if self.use_structured_outputs_internally else "free"
        )
        reason = getattr(self.model, "capabilities_reason", None)
        return self.prompting.describe(self._prompt_facts(), actions, reason, short=short)

    def default_prompt_templates(self) -> PromptTemplates:
        return compact_code_agent_templates() if self.prompting.compact_prompt else code_agent_templates()

    def _wants_python_interpreter_tool(self) -> bool:
        return False

    @property
    def python_executor(self) -> PythonExecutor:
        """The executor, created on first use through the plugin registry (`executor_type`).

        One run at a time uses the agent's executor; a run that starts while another still uses it
        (a managed agent called twice at once) gets one of its own, closed when that run ends."""
        run = current_run(self)
        if run is not None and run.executor is not None:
            return cast(PythonExecutor, run.executor)
        if self._executor is None:
            self._executor = self.create_python_executor()
        owner = self._executor_owner
        if run is not None and owner is not None and owner is not run and not owner.ended:
            run.executor = self.create_python_executor()
            return cast(PythonExecutor, run.executor)
        if run is not None:
            self._executor_owner = run
        return self._executor

    def _end_run(self, run: RunState) -> None:
        super()._end_run(run)
        if run.executor is not None:
            run.executor.close()
            run.executor = None

    def create_python_executor(self) -> PythonExecutor:
        from smol_core.loading import load_executor

        kwargs = {"max_print_outputs_length": self.max_print_outputs_length, **self.executor_kwargs}
        executor: PythonExecutor = load_executor(
            self.executor_type, self.additional_authorized_imports, **kwargs
        )
        return executor

    @classmethod
    def from_folder(cls, folder: str, **kwargs: Any) -> MultiStepAgent:
        """`MultiStepAgent.from_folder`; a folder whose `agent.json` names no class (smolagents up to
        1.20 wrote none) loads as this class, as in smolagents."""
        from smol_core.agents.serialization import agent_from_folder

        return cast(MultiStepAgent, agent_from_folder(folder, agent_class=cls, **kwargs))

    def initialize_system_prompt(self) -> str:
        tools = "\n\n".join(self.prompting.tool_prompt(tool) for tool in self.tools.values())
        tools = self.prompting.tools_section(self._prompt_facts(), tools)
        opening, closing = self.code_block_tags
        imports = "any module" if "*" in self.authorized_imports else ", ".join(self.authorized_imports)
        instructions = self._custom_instructions()
        if self._json_actions:
            instructions += STRUCTURED_OUTPUT_INSTRUCTIONS
        variables: dict[str, Any] = {
            "tools": tools,
            "managed_agents": self._managed_agents_section(),
            "authorized_imports": imports,
            "custom_instructions": instructions,
            "code_block_opening_tag": opening,
            "code_block_closing_tag": closing,
        }
        template = self.prompt_templates["system_prompt"]
        if "{%" in template:  # a smolagents Jinja template iterates over the Tool objects themselves
            variables = {
                **variables,
                "tools": self.tools,
                "managed_agents": self.managed_agents,
                "custom_instructions": self.instructions or "",
            }
        return populate_template(template, variables)

    def _prepare_run(self) -> None:
        self.logger.print(self.prompting_mode(short=self.logger.level < LogLevel.DEBUG), level=LogLevel.INFO)
        executor = self.python_executor
        executor.send_variables(self.state)
        door = self._run().door  # every call of the code goes through the run's door (effects.py)
        callables: dict[str, Any] = {
            name: tool_callable(tool, self.tool_timeout_seconds, self.tool_budget, door)
            for name, tool in self.tools.items()
        }
        callables.update(
            {name: managed_agent_callable(agent, door) for name, agent in self.managed_agents.items()}
        )
        executor.send_tools(callables)

    # --- one step ----------------------------------------------------------------------------

    def _generate(
        self, memory_step: ActionStep, messages: list[ChatMessage] | None = None, **options: Any
    ) -> Generator[StreamEvent, None, ChatMessage]:
        """One reply of the model to `messages` (by default the memory as `write_memory_to_messages`
        gives it); `options` go to the model with the request."""
        messages = self.write_memory_to_messages() if messages is None else messages
        memory_step.model_input_messages = messages
        stop_sequences = ["Observation:", "Calling tools:"]
        if self.code_block_tags[1] not in self.code_block_tags[0]:
            stop_sequences.append(self.code_block_tags[1])
        extra: dict[str, Any] = dict(options)
        if self._json_actions:
            extra["response_format"] = CODEAGENT_RESPONSE_FORMAT
            stop_sequences = []
        elif self.use_structured_outputs_internally:
            extra["grammar"] = self.prompting.action_grammar(self._prompt_facts())
        extra.update(self._grammar_keywords())  # the user's grammar= wins
        try:
            if self.stream_outputs:
                deltas: list[ChatMessageStreamDelta] = []
                for delta in self.model.generate_stream(messages, stop_sequences=stop_sequences, **extra):
                    deltas.append(delta)
                    yield delta
                return agglomerate_stream_deltas(deltas)
            return self.model.generate(messages, stop_sequences=stop_sequences, **extra)
        except BudgetExceededError:
            raise  # the run stops on its budget: not the model's failure
        except Exception as error:
            raise AgentGenerationError(
                f"The model failed to generate a reply: {error}", self.logger
            ) from error

    def write_memory_to_messages(self, summary_mode: bool = False) -> list[ChatMessage]:
        return self._messages(summary_mode)

    def _messages(self, summary_mode: bool = False, example_set: int = 0) -> list[ChatMessage]:
        """The memory as messages, with the strategy's worked examples (`example_set`: another
        choice of them for each drafted answer) as earlier turns, right after the system prompt."""
        messages = super().write_memory_to_messages(summary_mode=summary_mode)
        if not summary_mode:
            messages[1:1] = self.prompting.example_messages(self._prompt_facts(), example_set)
        return messages

    def _step_stream(self, memory_step: ActionStep) -> Generator[StreamEvent]:
        drafts = self.prompting.drafts_per_step(self._prompt_facts())
        if drafts > 1 and not self.stream_outputs:
            draft = self._best_draft(memory_step, drafts)
            if draft is not None:
                code = self._take_reply(memory_step, draft.message)
                yield self._tool_call_for(memory_step, code)
                self.logger.log_code(title="Executing parsed code:", content=code, level=LogLevel.INFO)
                yield self._take_output(memory_step, draft.output)
                return
            # No draft reached an answer: one more reply, run in the open so the error is recorded.
        message = yield from self._generate(memory_step)
        code = self._take_reply(memory_step, message)
        yield self._tool_call_for(memory_step, code)

        self.logger.log_code(title="Executing parsed code:", content=code, level=LogLevel.INFO)
        try:
            with instrumentation.span("code", "python", {"code": code}) as code_span:
                output = self._execute(code)
                _record_code_output(code_span, output)
        except InterpreterError as error:
            logs = getattr(error, "logs", "") or ""
            if logs:
                memory_step.observations = f"Execution logs:\n{logs}"
                self.logger.log_markdown(title="Execution logs:", content=logs, level=LogLevel.INFO)
            message_text = with_failing_line(str(error), code)
            if "is not allowed" in message_text and "import" in message_text.lower():
                self.logger.log_error(
                    "An import was blocked: if the agent needs it, add it to `additional_authorized_imports`."
                )
            raise AgentExecutionError(message_text, self.logger) from error
        if output.is_final_answer:
            refuse_code_as_answer(self, output.output)
        yield self._take_output(memory_step, output)

    def _reply_text(self, message: ChatMessage) -> str:
        text = reply_text(message)  # content that is not text is an error the model sees
        opening, closing = self.code_block_tags
        if not self._json_actions and opening in text and not text.rstrip().endswith(closing):
            text += closing  # the stop sequence ate the closing tag: show it to the model
        return text

    def _take_reply(self, memory_step: ActionStep, message: ChatMessage) -> str:
        """Record the model's reply in the step; return its code (AgentParsingError if it has none)."""
        text = self._reply_text(message)
        message.content = text
        memory_step.model_output_message = message
        memory_step.model_output = text
        memory_step.token_usage = message.token_usage
        self.logger.log_markdown(content=text, title="Output message of the LLM:", level=LogLevel.DEBUG)
        code = self._parse_code(text)
        memory_step.code_action = code
        return code

    def _tool_call_for(self, memory_step: ActionStep, code: str) -> ToolCall:
        tool_call = ToolCall(name="python_interpreter", arguments=code, id=f"call_{len(self.memory.steps)}")
        memory_step.tool_calls = [tool_call]
        return tool_call

    def _take_output(self, memory_step: ActionStep, output: CodeOutput) -> ActionOutput:
        """Record what the code did in the step, as the model will read it next."""
        observation = f"Execution logs:\n{output.logs}" if output.logs else ""
        rendered = truncate_content(as_text(output.output))
        if not output.is_final_answer:
            observation += ("\n" if observation else "") + f"Last output from code snippet:\n{rendered}"
        memory_step.observations = observation or "The code ran and printed nothing."
        if output.logs:
            self.logger.log_markdown(title="Execution logs:", content=output.logs, level=LogLevel.INFO)
        if not output.is_final_answer:
            self.logger.print(f"Out: {rendered}", level=LogLevel.INFO)
        shown = handle_agent_output_types(output.output)
        if not output.is_final_answer and isinstance(shown, AgentImage):
            memory_step.observations_images = [shown.to_raw()]  # a vision model sees the image next step
        memory_step.action_output = output.output
        return ActionOutput(output=output.output, is_final_answer=output.is_final_answer)

    def _best_draft(self, memory_step: ActionStep, count: int) -> Draft | None:
        """Draft `count` answers, each from other worked examples, and keep the one most reach
        (`prompting/drafts.py`). Only for agents that answer directly (no tools but final_answer):
        each draft is pure computation ending in final_answer, so running the losing ones has no
        effect outside the executor. Drafting stops once the rest could not change the vote
        (`DraftVote.decided`). With no answer at all, None (the step then runs one reply the usual
        way, so the error is recorded)."""
        vote = DraftVote(count, self.task or "", list(self.tools))
        for number in range(1, count + 1):
            if vote.decided(remaining=count - number + 1):
                break
            # the first draft's certainty can spare the others: ask for its tokens' probabilities
            ask = {"logprobs": True} if number == 1 and self.model.capabilities.token_logprobs else {}
            message = self._generate_quietly(memory_step, self._messages(example_set=number - 1), **ask)
            vote.count_tokens(message)
            try:
                code = self._parse_code(self._reply_text(message))
                if vote.calls_a_tool(code):
                    vote.drop(number, "calls a tool")
                    continue
                output = self._execute(code)
            except AgentParsingError:
                vote.drop(number, "no code")
                continue
            except InterpreterError as error:
                vote.drop_failed(number, error)
                continue
            tokens = token_logprobs(message) if ask else None
            certainty = least_likely_choice(tokens, code) if tokens else None
            vote.add(number, message, code, output, memory_step.model_input_messages, certainty)
        winner = vote.winner()
        if winner is None:
            return None
        self.logger.print(vote.line(winner), level=LogLevel.INFO)
        memory_step.model_input_messages = winner.prompt
        return winner

    def _execute(self, code: str) -> CodeOutput:
        """Run `code` in the executor, once it is checked not to rebind a tool's or a team member's
        name (see `agents/assignment_check.py`)."""
        check_no_tool_rebinding(code, [*self.tools, *self.managed_agents])
        return self.python_executor(code)

    def _generate_quietly(
        self, memory_step: ActionStep, messages: list[ChatMessage], **options: Any
    ) -> ChatMessage:
        generation = self._generate(memory_step, messages, **options)
        try:
            while True:
                next(generation)  # nothing streams here (drafting is off with stream_outputs)
        except StopIteration as done:
            message: ChatMessage = done.value
            return message

    def _parse_code(self, text: str) -> str:
        try:
            if self._json_actions:
                data = json.loads(text)
                code = str(data["code"])
                code = extract_code_from_text(code, self.code_block_tags) or code
            else:
                code = parse_code_blobs(text, self.code_block_tags)
        except AgentParsingError:
            raise
        except Exception as error:
            raise AgentParsingError(
                f"Could not read your reply as JSON with a 'code' key ({error}). "
                f'Reply like: {{"thought": "...", "code": "..."}}',
                self.logger,
            ) from error
        return fix_final_answer_code(code)

    # --- lifecycle -----------------------------------------------------------------------------

    def fresh_copy(self) -> CodeAgent:
        """See `MultiStepAgent.fresh_copy`; the copy makes its own executor from `executor_type` and
        `executor_kwargs`. An agent given an executor instance cannot be copied (one sandbox would
        serve two users): a ValueError says to build one agent per user instead."""
        if self._executor_given:
            raise ValueError(
                "This agent was given an executor instance (executor=...), which a copy of the agent "
                "would share, sandbox variables included: build one agent per user instead (GradioUI "
                "takes a function that returns a new agent), or pass executor_type= and executor_kwargs=."
            )
        twin = cast(CodeAgent, super().fresh_copy())
        twin._executor = None
        twin._executor_owner = None
        return twin

    def cleanup(self) -> None:
        if self._executor is not None:
            self._executor.close()
            self._executor = None
        super().cleanup()

    def __enter__(self) -> CodeAgent:
        return self


def _record_code_output(scope: Any, output: CodeOutput) -> None:
    """What the code did, on its span (content: recorded only if the user opted in)."""
    if scope is instrumentation.NO_SPAN:
        return
    scope.set("code.final_answer", output.is_final_answer)
    scope.set("code.logs", output.logs)
    scope.set("output", output.output)


def _code_block_tags(tags: tuple[str, str] | str | None) -> tuple[str, str]:
    if tags is None:
        return ("<code>", "</code>")
    if tags == "markdown":
        return ("```python", "```")
    if isinstance(tags, str):
        raise ValueError('code_block_tags must be a pair of strings or "markdown".')
    return (tags[0], tags[1])
