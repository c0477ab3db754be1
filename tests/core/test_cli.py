"""The `smol` and `smolagent` commands, run in process."""

from __future__ import annotations

import json

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


def test_seed_class_names_resolve_to_plugin_names(registry):
    assert smolagent.resolve_model_type("ScriptedModel") == "scripted"


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
