"""`launch_gradio_demo(tool)`: a form for one tool, what `Tool.save()`'s `app.py` serves.

Each input gets the widget of its declared type, and the output is shown by its type (an image,
a sound, or text), so a tool can be tried by hand before an agent uses it.
"""

from __future__ import annotations

import json
from typing import Any


def _input_component(name: str, spec: dict[str, Any]) -> Any:
    import gradio as gr

    kind = spec.get("type", "string")
    label = f"{name}: {spec.get('description', '')}".strip().rstrip(":")
    if kind == "boolean":
        return gr.Checkbox(label=label)
    if kind in ("integer", "number"):
        return gr.Number(label=label, precision=0 if kind == "integer" else None)
    if kind == "image":
        return gr.Image(label=label, type="pil")
    if kind == "audio":
        return gr.Audio(label=label, type="filepath")
    return gr.Textbox(label=label)


def _output_component(kind: str) -> Any:
    import gradio as gr

    if kind == "image":
        return gr.Image(label="Output", type="pil")
    if kind == "audio":
        return gr.Audio(label="Output", type="filepath")
    return gr.Textbox(label="Output")


def _parse(value: Any, kind: str) -> Any:
    """Text typed for an object or array input is read as JSON when it is JSON."""
    if kind in ("object", "array", "any") and isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def tool_runner(tool: Any) -> Any:
    """The function the form calls: the tool, with its output made displayable."""
    from smol_core.plugin_api import AgentAudio, AgentImage, handle_agent_output_types

    names = list(tool.inputs)

    def run(*values: Any) -> Any:
        arguments = {
            name: _parse(value, tool.inputs[name].get("type", "string"))
            for name, value in zip(names, values, strict=True)
            if not (value is None and tool.inputs[name].get("nullable"))
        }
        output = handle_agent_output_types(tool(**arguments), tool.output_type)
        if isinstance(output, AgentImage):
            return output.to_raw()
        if isinstance(output, AgentAudio):
            return output.to_string()
        return output if isinstance(output, str) else json.dumps(output, default=str)

    return run


def create_tool_demo(tool: Any) -> Any:
    """The tool's form as a Gradio `Interface`."""
    import gradio as gr

    return gr.Interface(
        fn=tool_runner(tool),
        inputs=[_input_component(name, spec) for name, spec in tool.inputs.items()],
        outputs=_output_component(tool.output_type),
        title=tool.name,
        description=tool.description,
        flagging_mode="never",
    )


def launch_gradio_demo(tool: Any, **launch_kwargs: Any) -> Any:
    """Serve a form for `tool` (on 127.0.0.1 unless `server_name=` says otherwise)."""
    return create_tool_demo(tool).launch(**launch_kwargs)
