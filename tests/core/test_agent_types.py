"""Agent output types: values that display, save to files, and decode untrusted bytes safely."""

from __future__ import annotations

import io
import subprocess
import sys
import wave
from pathlib import Path

import numpy as np
import pytest

from smol_core.agent_types import (
    AgentAudio,
    AgentImage,
    AgentText,
    AgentType,
    decode_image,
    handle_agent_input_types,
    handle_agent_output_types,
)

Image = pytest.importorskip("PIL.Image")


def png_bytes(size: tuple[int, int] = (6, 4), color: tuple[int, int, int] = (10, 200, 30)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, format="PNG")
    return buffer.getvalue()


def test_importing_the_module_loads_neither_pillow_nor_numpy_nor_ipython() -> None:
    code = "import sys, smol_core.agent_types; print(sorted({'PIL', 'numpy', 'IPython'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_agent_text_is_a_string() -> None:
    text = AgentText("hello")
    assert text == "hello" and isinstance(text, str) and isinstance(text, AgentType)
    assert text.to_raw() == text.to_string() == str(text) == "hello"
    assert text.upper() == "HELLO"


def test_an_image_from_pil_bytes_path_or_array_displays_and_saves(tmp_path: Path) -> None:
    pil = Image.new("RGB", (6, 4), (1, 2, 3))
    for value in (
        pil,
        png_bytes(),
        bytearray(png_bytes()),
        np.zeros((4, 6, 3), dtype=np.uint8),
        np.ones((4, 6)),
    ):
        image = AgentImage(value)
        assert image.size == (6, 4)  # attributes are the PIL image's
        path = image.to_string()
        assert Path(path).suffix == ".png" and Image.open(path).size == (6, 4)
        assert image._repr_png_().startswith(b"\x89PNG")
        assert str(image) == path
    on_disk = tmp_path / "photo.jpg"
    pil.save(on_disk, format="JPEG")
    from_path = AgentImage(on_disk)
    assert from_path.to_string() == str(on_disk) and from_path.to_raw().format == "JPEG"
    copy = AgentImage(from_path)
    assert copy.to_raw() is from_path.to_raw()
    saved = io.BytesIO()
    copy.save(saved, format="PNG")
    assert saved.getvalue().startswith(b"\x89PNG")


def test_image_bytes_are_decoded_only_as_png_jpeg_or_webp_within_a_pixel_budget(tmp_path: Path) -> None:
    eps = b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\nshowpage\n"
    with pytest.raises(ValueError, match="Not a PNG, JPEG or WEBP"):
        AgentImage(eps).to_raw()
    gif = io.BytesIO()
    Image.new("P", (2, 2)).save(gif, format="GIF")
    with pytest.raises(ValueError, match="Not a PNG, JPEG or WEBP"):
        decode_image(gif.getvalue())
    with pytest.raises(ValueError, match="more than the 100 allowed"):
        decode_image(png_bytes((20, 20)), max_pixels=100)
    not_image = tmp_path / "notes.png"
    not_image.write_text("hello", encoding="utf-8")
    with pytest.raises(ValueError):
        AgentImage(not_image).to_raw()
    with pytest.raises(TypeError, match="AgentImage takes"):
        AgentImage(3.5)


def wav_bytes(samples: np.ndarray, rate: int = 8000) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(rate)
        writer.writeframes(samples.astype(np.int16).tobytes())
    return buffer.getvalue()


def test_audio_from_arrays_tuples_bytes_and_paths_round_trips_through_wav(tmp_path: Path) -> None:
    tone = (0.5 * np.sin(np.linspace(0, 20, 800))).astype(np.float32)
    audio = AgentAudio(tone, samplerate=8000)
    path = audio.to_string()
    with wave.open(path, "rb") as reader:
        assert (reader.getframerate(), reader.getnframes(), reader.getsampwidth()) == (8000, 800, 2)
    again = AgentAudio(path)
    assert np.allclose(again.to_raw(), tone, atol=1e-3) and again.samplerate == 8000
    from_tuple = AgentAudio((22050, tone))
    assert from_tuple.samplerate == 22050
    from_bytes = AgentAudio(wav_bytes(np.array([0, 16384, -16384]), rate=11025))
    assert from_bytes.samplerate == 11025
    assert np.allclose(from_bytes.to_raw(), [0.0, 0.5, -0.5])
    html = from_bytes._repr_html_()
    assert html.startswith('<audio controls src="data:audio/wav;base64,')
    with pytest.raises(ValueError, match="Not a PCM WAV"):
        AgentAudio(b"ID3 this is an mp3")
    with pytest.raises(TypeError, match="AgentAudio takes"):
        AgentAudio({"not": "audio"})


def test_other_audio_formats_need_soundfile_and_say_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "soundfile", None)
    song = tmp_path / "song.mp3"
    song.write_bytes(b"ID3")
    with pytest.raises(ModuleNotFoundError, match="pip install soundfile"):
        AgentAudio(song).to_raw()


def test_outputs_are_wrapped_by_declared_type_or_by_value() -> None:
    assert isinstance(handle_agent_output_types("hi"), AgentText)
    assert isinstance(handle_agent_output_types(Image.new("RGB", (1, 1))), AgentImage)
    assert isinstance(handle_agent_output_types(png_bytes(), "image"), AgentImage)
    assert isinstance(handle_agent_output_types(np.zeros(4), "audio"), AgentAudio)
    assert isinstance(handle_agent_output_types(5, "string"), AgentText)
    assert handle_agent_output_types(5) == 5
    already = AgentText("x")
    assert handle_agent_output_types(already, "image") is already


def test_inputs_are_unwrapped_for_tools() -> None:
    pil = Image.new("RGB", (2, 2))
    args, kwargs = handle_agent_input_types(AgentText("a"), 3, picture=AgentImage(pil), n=1)
    assert args == ["a", 3] and type(args[0]) is str
    assert kwargs == {"picture": pil, "n": 1}
