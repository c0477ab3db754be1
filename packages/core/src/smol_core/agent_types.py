"""Values an agent hands back that show themselves: text, images and audio.

smolagents' `AgentText`, `AgentImage` and `AgentAudio`, with three differences that follow
from how smol treats its inputs:

- Importing this module costs nothing: Pillow, numpy, soundfile and torch are imported only when a
  value needs them, and IPython never (notebooks find `_repr_png_` / `_repr_html_` by name). So
  `AgentImage` *wraps* a PIL image instead of subclassing `PIL.Image.Image` (the core does not depend
  on Pillow); attribute access (`.size`, `.convert(...)`, `.save(...)`) is forwarded to the image.
  Made from a PIL image (Pillow is then loaded), it *is* also a `PIL.Image.Image`, as smolagents'
  users check with `isinstance`: the class is built on first such use, with the image's own state.
- Image bytes and files are decoded by Pillow with an explicit list of formats (PNG, JPEG, WEBP)
  and a pixel budget: they often come from a sandbox or a tool, which may hand over anything, and
  Pillow's format sniffing would otherwise reach decoders such as EPS (which runs Ghostscript).
- Audio needs neither torch nor soundfile: WAV is read and written with the standard `wave` module,
  arrays are numpy; soundfile is used, when installed, only to read other formats from a path.

`to_string()` is a file path for media (what a chat UI or a file download wants), `to_raw()` the
plain Python object (a `str`, a PIL image, a numpy array).
"""

from __future__ import annotations

import base64
import functools
import io
import logging
import os
import sys
import tempfile
import uuid
import wave
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

IMAGE_FORMATS = ("PNG", "JPEG", "WEBP")
# About a 4K screen twice over: more than any screenshot or plot, far less than a decompression bomb.
MAX_IMAGE_PIXELS = 4096 * 4096
MAX_MEDIA_BYTES = 64 * 1024 * 1024
DEFAULT_SAMPLERATE = 16_000


class AgentType:
    """A value an agent returned, that behaves as the plain value, prints as a string (a path for
    media) and displays in a notebook."""

    def __init__(self, value: Any) -> None:
        self._value = value

    def __str__(self) -> str:
        return self.to_string()

    def to_raw(self) -> Any:
        logger.warning("A raw AgentType of unknown kind: display and conversion to text are unreliable.")
        return self._value

    def to_string(self) -> str:
        logger.warning("A raw AgentType of unknown kind: display and conversion to text are unreliable.")
        return str(self._value)


class AgentText(AgentType, str):
    """Text an agent returned; it is a `str`."""

    def __new__(cls, value: Any) -> AgentText:
        return str.__new__(cls, value)

    def to_raw(self) -> str:
        return str(self._value)

    def to_string(self) -> str:
        return str(self._value)


def _new_temp_path(suffix: str) -> str:
    """A fresh file in the system's temp folder (where Gradio and notebooks may read files from)."""
    return os.path.join(tempfile.mkdtemp(prefix="smol_"), f"{uuid.uuid4().hex}{suffix}")


def _pil_image_type() -> type | None:
    """`PIL.Image.Image` if Pillow is already loaded: a value cannot be a PIL image otherwise, so a
    type check never pays for importing Pillow."""
    module = sys.modules.get("PIL.Image")
    return getattr(module, "Image", None) if module is not None else None


def decode_image(source: bytes | str | os.PathLike[str], max_pixels: int = MAX_IMAGE_PIXELS) -> Any:
    """A PIL image from bytes or a file, decoded only as PNG, JPEG or WEBP and only within
    `max_pixels`: the size is checked from the header before any pixel is decoded."""
    from PIL import Image, UnidentifiedImageError  # type: ignore[import-not-found,import-untyped,unused-ignore]

    if isinstance(source, bytes | bytearray):
        if len(source) > MAX_MEDIA_BYTES:
            raise ValueError(f"The image is {len(source)} bytes, more than the {MAX_MEDIA_BYTES} allowed.")
        stream: Any = io.BytesIO(bytes(source))
    else:
        stream = os.fspath(source)
    try:
        image = Image.open(stream, formats=list(IMAGE_FORMATS))
    except (UnidentifiedImageError, Image.DecompressionBombError) as error:
        raise ValueError(f"Not a PNG, JPEG or WEBP image within the size budget: {error}") from error
    width, height = image.size
    if width * height > max_pixels:
        image.close()
        raise ValueError(f"The image is {width}x{height} pixels, more than the {max_pixels} allowed.")
    image.load()
    return image


def _array_to_image(array: Any) -> Any:
    """An image from an array of pixels (0-255 integers, or 0-1 floats)."""
    import numpy as np  # type: ignore[import-not-found,import-untyped,unused-ignore]
    from PIL import Image

    pixels = np.asarray(array)
    if pixels.dtype.kind == "f":
        pixels = (np.clip(pixels, 0.0, 1.0) * 255).round()
    if pixels.size > MAX_IMAGE_PIXELS * 4:
        raise ValueError(f"The image array has {pixels.size} values, more than allowed.")
    return Image.fromarray(pixels.astype(np.uint8))


def _as_numpy(value: Any) -> Any:
    """A numpy array from an array-like (numpy, or a torch tensor, detached and moved to the CPU)."""
    import numpy as np

    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    return np.asarray(value)


class AgentImage(AgentType):
    """An image an agent returned: from a PIL image, a path, PNG/JPEG/WEBP bytes or an array.

    Behaves as the PIL image for attribute access; `to_raw()` is the PIL image, `to_string()` a PNG
    file's path; a notebook shows it.
    """

    def __new__(cls, value: Any = None, *args: Any, **kwargs: Any) -> AgentImage:
        pil_image = _pil_image_type()
        if cls is AgentImage and pil_image is not None and isinstance(value, pil_image):
            return super().__new__(_pil_agent_image_class())
        return super().__new__(cls)

    def __init__(self, value: Any) -> None:
        super().__init__(value)
        self._raw: Any = None
        self._path: str | None = None
        self._bytes: bytes | None = None
        self._array: Any = None
        pil_image = _pil_image_type()
        if isinstance(value, AgentImage):
            self._raw, self._path, self._bytes, self._array = (
                value._raw,
                value._path,
                value._bytes,
                value._array,
            )
        elif pil_image is not None and isinstance(value, pil_image):
            self._raw = value
        elif isinstance(value, bytes | bytearray):
            self._bytes = bytes(value)
        elif isinstance(value, str | Path):
            self._path = os.fspath(value)
        elif hasattr(value, "__array__") or hasattr(value, "detach"):
            self._array = value
        else:
            raise TypeError(
                f"AgentImage takes a PIL image, a path, image bytes or an array, not {type(value)}."
            )

    def to_raw(self) -> Any:
        """The PIL image (decoded on first use, under the format and size rules of `decode_image`)."""
        if self._raw is None:
            if self._bytes is not None:
                self._raw = decode_image(self._bytes)
            elif self._path is not None:
                self._raw = decode_image(self._path)
            else:
                self._raw = _array_to_image(_as_numpy(self._array))
        return self._raw

    def to_string(self) -> str:
        """The path of a file holding the image (a PNG written to the temp folder when needed)."""
        if self._path is None:
            path = _new_temp_path(".png")
            self.to_raw().save(path, format="PNG")
            self._path = path
        return self._path

    def save(self, output: Any, format: str | None = None, **params: Any) -> None:
        """Save as PIL does: `image.save("out.jpg")` or `image.save(buffer, format="PNG")`."""
        self.to_raw().save(output, format=format, **params)

    def _repr_png_(self) -> bytes:
        """What a notebook shows (IPython looks this method up by name)."""
        buffer = io.BytesIO()
        self.to_raw().save(buffer, format="PNG")
        return buffer.getvalue()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # internals, and the copy/pickle protocol: never decode for them
            raise AttributeError(name)
        return getattr(self.to_raw(), name)

    def __repr__(self) -> str:
        where = self._path or ("in memory" if self._raw is not None else "not decoded yet")
        return f"<AgentImage {where}>"


def _wav_to_array(source: Any) -> tuple[Any, int]:
    """Samples as float32 in [-1, 1] (frames, or frames x channels) and the sample rate, from WAV."""
    import numpy as np

    try:
        with wave.open(source, "rb") as reader:
            width, channels, rate = reader.getsampwidth(), reader.getnchannels(), reader.getframerate()
            frames = reader.readframes(reader.getnframes())
    except (wave.Error, EOFError) as error:
        raise ValueError(f"Not a PCM WAV file: {error}") from error
    kinds = {1: np.uint8, 2: np.int16, 4: np.int32}
    if width not in kinds:
        raise ValueError(f"A WAV file with {width * 8}-bit samples is not supported (8, 16 or 32 bits).")
    samples = np.frombuffer(frames, dtype=kinds[width]).astype(np.float32)
    if width == 1:
        samples = (samples - 128.0) / 128.0
    else:
        samples /= float(2 ** (8 * width - 1))
    if channels > 1:
        samples = samples.reshape(-1, channels)
    return samples, rate


def write_wav(path: str, samples: Any, samplerate: int) -> None:
    """Write samples (floats in [-1, 1], or integers) as a 16-bit PCM WAV file."""
    import numpy as np

    array = np.asarray(samples)
    if array.dtype.kind == "f":
        array = np.clip(array, -1.0, 1.0) * 32767.0
    array = array.astype(np.int16)
    channels = 1 if array.ndim == 1 else array.shape[1]
    with wave.open(path, "wb") as writer:
        writer.setnchannels(channels)
        writer.setsampwidth(2)
        writer.setframerate(int(samplerate))
        writer.writeframes(array.tobytes())


class AgentAudio(AgentType):
    """Sound an agent returned: from a path, WAV bytes, an array with `samplerate`, or a
    `(samplerate, array)` pair as Gradio gives it. `to_raw()` is a numpy array, `to_string()` a
    file's path; a notebook shows a player."""

    def __init__(self, value: Any, samplerate: int = DEFAULT_SAMPLERATE) -> None:
        super().__init__(value)
        self.samplerate = samplerate
        self._path: str | None = None
        self._array: Any = None
        if isinstance(value, AgentAudio):
            self._path, self._array, self.samplerate = value._path, value._array, value.samplerate
        elif isinstance(value, str | Path):
            self._path = os.fspath(value)
        elif isinstance(value, bytes | bytearray):
            if len(value) > MAX_MEDIA_BYTES:
                raise ValueError(f"The audio is {len(value)} bytes, more than the {MAX_MEDIA_BYTES} allowed.")
            self._array, self.samplerate = _wav_to_array(io.BytesIO(bytes(value)))
        elif isinstance(value, tuple) and len(value) == 2:
            self.samplerate, self._array = int(value[0]), value[1]
        elif hasattr(value, "__array__") or hasattr(value, "detach"):
            self._array = value
        else:
            raise TypeError(
                f"AgentAudio takes a path, WAV bytes, an array or (rate, array), not {type(value)}."
            )

    def to_raw(self) -> Any:
        """The samples as a numpy array (read from the file on first use)."""
        if self._array is None:
            assert self._path is not None
            if self._path.lower().endswith(".wav"):
                self._array, self.samplerate = _wav_to_array(self._path)
            else:
                try:
                    import soundfile  # type: ignore[import-not-found,import-untyped,unused-ignore]
                except ModuleNotFoundError as error:
                    raise ModuleNotFoundError(
                        f"Reading {Path(self._path).suffix} audio needs soundfile: `pip install soundfile` "
                        "(WAV files need nothing)."
                    ) from error
                self._array, self.samplerate = soundfile.read(self._path, dtype="float32")
        return _as_numpy(self._array)

    def to_string(self) -> str:
        """The path of a file holding the sound (a 16-bit WAV written to the temp folder when needed)."""
        if self._path is None:
            path = _new_temp_path(".wav")
            write_wav(path, self.to_raw(), self.samplerate)
            self._path = path
        return self._path

    def _repr_html_(self) -> str:
        """A player for notebooks, with the sound inline (IPython looks this method up by name)."""
        path = self.to_string()
        kind = "wav" if path.lower().endswith(".wav") else Path(path).suffix.lstrip(".") or "wav"
        data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
        return f'<audio controls src="data:audio/{kind};base64,{data}"></audio>'

    def __repr__(self) -> str:
        return f"<AgentAudio {self._path or 'in memory'} at {self.samplerate} Hz>"


_AGENT_TYPE_MAPPING: dict[str, type[AgentType]] = {
    "string": AgentText,
    "image": AgentImage,
    "audio": AgentAudio,
}


@functools.cache
def _pil_agent_image_class() -> type[AgentImage]:
    """`AgentImage` that is also a `PIL.Image.Image`: made once, when an AgentImage is first built
    from a PIL image (so Pillow is loaded already and importing this module never loads it)."""
    from PIL import Image

    class PILAgentImage(AgentImage, Image.Image):  # type: ignore[misc]
        """An AgentImage of a PIL image, sharing the image's state (pixels, mode, size, info) so
        that PIL's own methods work on it; what AgentImage defines (`save`, `to_string`...) wins."""

        __hash__ = AgentType.__hash__  # PIL images define __eq__ and so are unhashable; agent values are not

        def __init__(self, value: Any) -> None:
            AgentImage.__init__(self, value)
            for key, item in vars(self._raw).items():
                self.__dict__.setdefault(key, item)

        def __reduce__(self) -> tuple[Any, ...]:
            return (AgentImage, (self._raw,))

        def __copy__(self) -> AgentImage:  # type: ignore[override]  # PIL's makes a plain PIL image
            return AgentImage(self._raw)

    PILAgentImage.__name__ = PILAgentImage.__qualname__ = "AgentImage"
    return PILAgentImage


def handle_agent_input_types(*args: Any, **kwargs: Any) -> tuple[list[Any], dict[str, Any]]:
    """Arguments for a tool: agent types become their plain values."""
    raw_args = [arg.to_raw() if isinstance(arg, AgentType) else arg for arg in args]
    raw_kwargs = {
        key: value.to_raw() if isinstance(value, AgentType) else value for key, value in kwargs.items()
    }
    return raw_args, raw_kwargs


def handle_agent_output_types(output: Any, output_type: str | None = None) -> Any:
    """Wrap a tool's or an agent's output so that it displays: by the tool's declared `output_type`
    when it names a media or text type, else by the value's own type (str, PIL image). Other values,
    and values that are already agent types, come back unchanged."""
    if isinstance(output, AgentType):
        return output
    if output_type in _AGENT_TYPE_MAPPING:
        return _AGENT_TYPE_MAPPING[output_type](output)
    if isinstance(output, str):
        return AgentText(output)
    pil_image = _pil_image_type()
    if pil_image is not None and isinstance(output, pil_image):
        return AgentImage(output)
    return output


__all__ = [
    "AgentAudio",
    "AgentImage",
    "AgentText",
    "AgentType",
    "handle_agent_input_types",
    "handle_agent_output_types",
]
