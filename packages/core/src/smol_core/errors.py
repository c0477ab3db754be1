"""The exceptions of smol.

Two families, on purpose. `AgentError` and its subclasses are errors *of the model's making* (an
unparsable reply, a failing tool, blocked code): the agent records them as the step's observation and
the run goes on, so the model can correct itself. `SmolError` subclasses are errors *of the host's
making* (bad configuration, an unknown plugin, a server that is down): they propagate to the caller
with a message that says what to do.
"""

from __future__ import annotations

from typing import Any, ClassVar


class SmolError(Exception):
    """Base for errors of configuration or environment: raised to the caller, never fed to the model."""


class BudgetExceededError(SmolError):
    """A run reached one of its budget's limits (`RunBudget`) and stopped before its next step;
    `kind` says which ("tokens", "cost", "seconds" or "steps"), `spent` what the run had spent."""

    def __init__(self, message: str, kind: str = "", spent: Any = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.spent = spent


class PluginNotFoundError(SmolError, LookupError, ValueError):
    """A model, executor or tool was asked for by a name that no installed plugin registers.

    Also a `ValueError`: smolagents raises one for an unknown `executor_type`, and code that
    moved over may catch it."""


class PluginArgumentError(SmolError, TypeError):
    """A plugin's factory was given a keyword it does not take (a typo in `executor_kwargs`, ...)."""


class PluginConflictError(SmolError):
    """Two installed distributions register the same name in the same kind."""


class AgentError(Exception):
    """An error in a step that the model can see and recover from."""

    # Whether this error ends the run (raised to the caller) rather than being shown to the model.
    ends_run: ClassVar[bool] = False

    def __init__(self, message: str, logger: Any = None) -> None:
        super().__init__(message)
        self.message = message
        # As in smolagents, an error given the agent's logger shows itself when raised; the
        # agent loop shows the others, so that each error is printed once.
        self.logged = logger is not None and hasattr(logger, "log_error")
        # An error that ends the run is said by a caller that reports it itself (the `smolagent`
        # command's last line), not a second time here.
        said_by_caller = self.ends_run and getattr(logger, "caller_reports_run_end", False)
        if self.logged and not said_by_caller:
            logger.log_error(message)

    def dict(self) -> dict[str, str]:
        return {"type": self.__class__.__name__, "message": str(self.message)}


class AgentParsingError(AgentError, ValueError):
    """The model's reply could not be read as an action.

    Also a `ValueError`: smolagents' parsing functions (`parse_code_blobs`, `parse_json_blob`) raise
    one for a reply they cannot read, and code that calls them catches it so.
    """


class AgentExecutionError(AgentError):
    """The action ran and failed: code raised, or was blocked by the sandbox."""


class AgentMaxStepsError(AgentError):
    """The run reached `max_steps` without a final answer."""


class AgentToolCallError(AgentExecutionError):
    """A tool was called with wrong arguments or under an unknown name."""


class AgentToolExecutionError(AgentExecutionError):
    """A tool raised while running."""


class AgentUnknownToolError(AgentToolCallError, AgentToolExecutionError):
    """A call named no tool the agent has. smol reports it as a wrong call (`AgentToolCallError`),
    smolagents as a failed execution (`AgentToolExecutionError`): code written for either catches it."""


class AgentGenerationError(AgentError):
    """The model failed to produce a reply (after retries). Raised to the caller: the run stops."""

    ends_run: ClassVar[bool] = True


class ModelAPIError(SmolError, AgentGenerationError):
    """A model behind an API failed for good: refused the request, or still failing after the retries.

    Every model plugin raises it (or a subclass naming its provider), so callers can branch on the
    facts rather than parse messages: `status` (the HTTP status, None when no answer came), `model_id`,
    `provider` and `retryable` (whether trying again later may help: a 429, a 5xx, a dropped
    connection, a time-out; not a 401 or a 400). It is a `SmolError`, an error of the host's making;
    it stays an `AgentGenerationError` too, so code written for smolagents keeps catching it.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        model_id: str | None = None,
        provider: str | None = None,
        retryable: bool = False,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.model_id = model_id
        self.provider = provider
        self.retryable = retryable


class DocstringParsingException(SmolError):
    """A function given as a tool lacks a description of one of its arguments."""


class TypeHintParsingException(SmolError):
    """A function given as a tool has an argument or return type that cannot be described in JSON schema."""
