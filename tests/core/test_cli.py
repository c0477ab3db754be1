"""The `smol` and `smolagent` commands, run in process."""

from __future__ import annotations

import json

import pytest

from smol_core import hookimpl
from smol_core.cli import smol, smolagent
from smol_core.plugins.specs import ModelSpec


class ScriptedModelPlugin:
    """A model plugin whose model writes one fixed code action."""

    @hookimpl
    def smol_models(self):
        from smol_core.testing import ScriptedModel

        def factory(model_id: str | None = None, **kwargs):
            return ScriptedModel(
                ["Thought: go.\n<code>\nimport math\nfinal_answer(math.factorial(5))\n</code>"]
            )

        return [ModelSpec("fixed", factory, "Fixed replies.")]


def test_smolagent_prints_only_the_answer_on_stdout(registry, capsys):
    registry.register(ScriptedModelPlugin(), name="fixed-plugin")
    assert smolagent.main(["5 factorial?", "--model-type", "fixed", "--imports", "fractions numpy"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "120\n"
    assert "Step 1" in captured.err


def test_smolagent_unknown_tool_is_a_clear_error(registry, capsys):
    registry.register(ScriptedModelPlugin(), name="fixed-plugin")
    assert smolagent.main(["x", "--model-type", "fixed", "--tools", "no_such_tool"]) == 2
    assert "No tool named 'no_such_tool'" in capsys.readouterr().err


def test_smolagents_class_names_resolve_to_plugin_names(registry):
    assert smolagent.resolve_model_type("ScriptedModel") == "scripted"


@pytest.mark.parametrize("model_type", ["scripted", "function", "ScriptedModel"])
def test_test_doubles_are_not_offered_or_chosen_as_models(registry, capsys, model_type):
    assert smolagent.main(["x", "--model-type", model_type]) == 2
    err = capsys.readouterr().err
    assert "is a test double, not a model" in err and "from smol_core.testing.models import" in err
    assert "Traceback" not in err
    assert "scripted" not in registry.names("models") and "function" not in registry.names("models")
    smol.main(["plugins"])
    assert "scripted" not in capsys.readouterr().out


def test_smol_plugins_text_and_json(registry, capsys):
    assert smol.main(["plugins"]) in (0, 1)
    text = capsys.readouterr().out
    assert "smol-core" in text and "executors: local" in text
    smol.main(["plugins", "--json"])
    data = json.loads(capsys.readouterr().out)
    core = next(p for p in data if p["builtin"])
    assert "final_answer" in core["registers"]["tools"]


def test_smol_doctor_reports_protections(registry, capsys):
    assert smol.main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "Local executor protections" in out
    assert "[on ]" in out  # the language guards are always on


class GrammarModelPlugin:
    """A model plugin whose model decodes under a grammar, like the embedded llama.cpp default."""

    model = None

    @hookimpl
    def smol_models(self):
        import dataclasses

        from smol_core.testing import ScriptedModel

        def factory(model_id: str | None = None, **kwargs):
            model = ScriptedModel(["Thought: go.\n<code>\nfinal_answer(2)\n</code>"])
            model.capabilities = dataclasses.replace(model.capabilities, grammar=True)
            GrammarModelPlugin.model = model
            return model

        return [ModelSpec("grammar-model", factory, "Decodes under a grammar.")]


def test_smolagent_constrains_decoding_by_default_for_grammar_models(registry, capsys):
    registry.register(GrammarModelPlugin(), name="grammar-plugin")
    assert smolagent.main(["x", "--model-type", "grammar-model"]) == 0
    assert GrammarModelPlugin.model.calls[0]["grammar"].startswith("root ::=")
    assert smolagent.main(["x", "--model-type", "grammar-model", "--no-structured"]) == 0
    assert "grammar" not in GrammarModelPlugin.model.calls[0]


def test_python_api_constrains_decoding_by_default_for_grammar_models_as_the_cli_does():
    """One place decides (the agent, from the model's capabilities): `CodeAgent(...)` in Python gets
    what `smolagent` gets, and an explicit choice wins; models without a grammar keep smolagents' default."""
    import dataclasses

    from smol_core import CodeAgent
    from smol_core.testing import ScriptedModel

    def model(grammar: bool, json_actions: bool) -> ScriptedModel:
        reply = '{"thought": "go", "code": "final_answer(2)"}' if json_actions else None
        scripted = ScriptedModel([reply or "Thought: go.\n<code>\nfinal_answer(2)\n</code>"])
        scripted.capabilities = dataclasses.replace(scripted.capabilities, grammar=grammar)
        return scripted

    for grammar, chosen, expected in [
        (True, None, True),
        (True, False, False),
        (False, None, False),
        (False, True, False),  # JSON {thought, code} instead: no grammar is sent to such a model
    ]:
        scripted = model(grammar, json_actions=bool(chosen) and not grammar)
        agent = CodeAgent(tools=[], model=scripted, use_structured_outputs_internally=chosen)
        with agent:
            assert agent.run("x") == 2
        assert ("grammar" in scripted.calls[0]) is expected, (grammar, chosen)
        assert agent.use_structured_outputs_internally is (chosen if chosen is not None else grammar)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([""], "the task is empty"),
        (["   "], "the task is empty"),
        ([], "no task"),
        (["x", "--max-steps", "-1"], "--max-steps must be at least 1"),
        (["x", "--max-steps", "0"], "--max-steps must be at least 1"),
        (["x", "--executor", "nosuch"], "nosuch"),
        (["x", "--imports", "nosuchmod_smol_test"], "nosuchmod_smol_test"),
        (["x", "--verbosity-level", "99"], "--verbosity-level"),
        (["--task-file", "/nonexistent/task.txt"], "cannot read --task-file"),
        (["x", "--task-file", "/nonexistent/task.txt"], "not both"),
    ],
)
def test_smolagent_checks_its_arguments_before_loading_a_model(registry, capsys, argv, message):
    """Each mistake is one line and exit status 2, before any model is built (the model here would fail)."""
    registry.register(ScriptedModelPlugin(), name="fixed-plugin")
    with pytest.raises(SystemExit) as exited:
        smolagent.main([*argv, "--model-type", "no-model-is-built"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_smolagent_reads_the_task_from_stdin_or_a_file(registry, capsys, monkeypatch, tmp_path):
    import io

    registry.register(ScriptedModelPlugin(), name="fixed-plugin")
    monkeypatch.setattr("sys.stdin", io.StringIO("5 factorial?\n" + "padding " * 50_000))
    assert smolagent.main(["-", "--model-type", "fixed"]) == 0
    assert capsys.readouterr().out == "120\n"
    task = tmp_path / "task.txt"
    task.write_text("5 factorial?")
    assert smolagent.main(["--task-file", str(task), "--model-type", "fixed"]) == 0
    assert capsys.readouterr().out == "120\n"
