"""The Gradio app the Space tests serve on 127.0.0.1: text, numbers with defaults, an image out and in,
two outputs, and an endpoint that fails."""

from __future__ import annotations

from typing import Any


def greet(name: str, times: int = 1) -> str:
    return " ".join([f"Hello {name}!"] * int(times))


def square(size: float) -> Any:
    from PIL import Image

    return Image.new("RGB", (int(size), int(size)), (255, 0, 0))


def measure(picture: Any) -> str:
    return f"{picture.width}x{picture.height}"


def pair(text: str) -> tuple[str, int]:
    return text[::-1], len(text)


def broken(text: str) -> str:
    raise ValueError("the model behind this Space is out of memory")


def build() -> Any:
    import gradio as gr

    with gr.Blocks() as demo:
        name = gr.Textbox(label="Name of the person to greet")
        times = gr.Number(label="How many times", value=1, precision=0)
        out = gr.Textbox(label="Greeting")
        gr.Button().click(greet, [name, times], out, api_name="greet")
        size = gr.Slider(1, 64, value=8, label="Side in pixels")
        picture = gr.Image(label="Square", type="pil")
        gr.Button().click(square, size, picture, api_name="square")
        dims = gr.Textbox(label="Size")
        gr.Button().click(measure, picture, dims, api_name="measure")
        length = gr.Number(label="Length")
        gr.Button().click(pair, name, [out, length], api_name="pair")
        gr.Button().click(broken, name, out, api_name="broken")
    return demo
