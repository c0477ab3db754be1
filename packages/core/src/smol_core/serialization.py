"""`SafeSerializer`: values as JSON with type markers, the format smolagents' remote executors use.

Why: code written for smolagents imports `SafeSerializer` to move values to and from a sandbox
(a Jupyter kernel, an E2B or Docker box) as text: `"safe:" + JSON`, where a tuple, set, bytes, a
datetime, a Decimal, a Path, a numpy array, a PIL image or a dataclass is a small object
`{"__type__": ..., ...}`. smol's own executors do not need it (they speak a typed frame protocol,
`smol_core.executors.worker.protocol`), but users' code that imports it keeps working, with the same format.

Safety, which is the point of the class:
- Decoding builds only plain values: a dataclass comes back as a dict (its class is never looked
  up or imported), an array only with a numeric, boolean or string dtype, an image only as PNG
  (no format sniffing, so no decoder for exotic formats is reachable from the data).
- A plain dict that happens to hold a `"__type__"` key is written in the marked dict form, so data
  cannot be mistaken for a marker on the way back.
- pickle (which runs arbitrary code when loaded) is refused unless the caller passes
  `allow_pickle=True`; then every pickle written or read raises a `FutureWarning` saying so. Loading
  pickle from a sandbox hands the sandbox the host: pass `allow_pickle=True` only for data you made.
"""

from __future__ import annotations

import base64
import dataclasses
import inspect
import json
import pickle
import textwrap
import warnings
from io import BytesIO
from typing import Any, ClassVar

__all__ = ["SafeSerializer", "SerializationError"]


class SerializationError(Exception):
    """A value cannot be written safely, or data is pickle and pickle was not allowed."""


def from_json_safe(obj: Any) -> Any:
    """The value a `to_json_safe` representation stands for.

    Self-contained (its imports are inside), because its source is also sent to sandboxes by
    `SafeSerializer.get_deserializer_code`. An unknown marker is left as the dict it is.
    """
    import base64
    from io import BytesIO

    if isinstance(obj, list):
        return [from_json_safe(item) for item in obj]
    if not isinstance(obj, dict):
        return obj
    kind = obj.get("__type__")
    if kind == "bytes":
        return base64.b64decode(obj["data"], validate=True)
    if kind == "tuple":
        return tuple(from_json_safe(item) for item in obj["data"])
    if kind == "set":
        return {from_json_safe(item) for item in obj["data"]}
    if kind == "frozenset":
        return frozenset(from_json_safe(item) for item in obj["data"])
    if kind == "complex":
        return complex(float(obj["real"]), float(obj["imag"]))
    if kind == "dict_with_complex_keys":
        return {from_json_safe(key): from_json_safe(value) for key, value in obj["data"]}
    if kind in ("datetime", "date", "time"):
        import datetime

        return getattr(datetime, kind).fromisoformat(str(obj["data"]))
    if kind == "timedelta":
        from datetime import timedelta

        return timedelta(seconds=float(obj["total_seconds"]))
    if kind == "Decimal":
        from decimal import Decimal

        return Decimal(str(obj["data"]))
    if kind == "Path":
        from pathlib import Path

        return Path(str(obj["data"]))
    if kind == "ndarray":
        data = from_json_safe(obj["data"])
        try:
            import numpy
        except ImportError:
            return data
        dtype = numpy.dtype(str(obj["dtype"]))
        if dtype.kind not in "biufcUS":  # never object, void or datetime dtypes from data
            raise ValueError(f"refused ndarray dtype {dtype}: only numeric, boolean and string arrays")
        return numpy.array(data, dtype=dtype)
    if kind == "PIL.Image":
        try:
            from PIL import Image
        except ImportError:
            return dict(obj)
        image = Image.open(BytesIO(base64.b64decode(obj["data"], validate=True)), formats=["PNG"])
        image.load()
        return image
    if kind == "dataclass":
        fields = {key: from_json_safe(value) for key, value in obj["data"].items()}
        return {"__dataclass__": obj["class_name"], "__module__": obj["module"], **fields}
    return {key: from_json_safe(value) for key, value in obj.items()}


class SafeSerializer:
    """Serialize values as `"safe:" + JSON` with type markers; pickle only when the caller opts in.

    Writes: str, int, float, bool, None, list, dict (any hashable keys), tuple, set, frozenset, bytes,
    complex, datetime/date/time/timedelta, Decimal, Path, numpy arrays and scalars, PIL images (as
    PNG), dataclass instances (read back as dicts) and smol's agent values (`AgentText`... as their
    plain value). Anything else raises `SerializationError`.
    """

    SAFE_PREFIX: ClassVar[str] = "safe:"
    PICKLE_PREFIX: ClassVar[str] = "pickle:"

    @staticmethod
    def to_json_safe(obj: Any) -> Any:
        """A JSON-ready representation of `obj`; `SerializationError` for a type it cannot write."""
        kind = type(obj)
        if obj is None or kind in (str, int, float, bool):
            return obj
        if kind is list:
            return [SafeSerializer.to_json_safe(item) for item in obj]
        if kind is dict:
            if all(type(key) is str for key in obj) and "__type__" not in obj:
                return {key: SafeSerializer.to_json_safe(value) for key, value in obj.items()}
            pairs = [[SafeSerializer.to_json_safe(k), SafeSerializer.to_json_safe(v)] for k, v in obj.items()]
            return {"__type__": "dict_with_complex_keys", "data": pairs}
        if kind in (tuple, set, frozenset):
            return {"__type__": kind.__name__, "data": [SafeSerializer.to_json_safe(item) for item in obj]}
        if kind is bytes:
            return {"__type__": "bytes", "data": base64.b64encode(obj).decode()}
        if kind is complex:
            return {"__type__": "complex", "real": obj.real, "imag": obj.imag}
        module, name = getattr(kind, "__module__", ""), kind.__name__
        if module == "datetime" and name in ("datetime", "date", "time"):
            return {"__type__": name, "data": obj.isoformat()}
        if module == "datetime" and name == "timedelta":
            return {"__type__": "timedelta", "total_seconds": obj.total_seconds()}
        if module == "decimal" and name == "Decimal":
            return {"__type__": "Decimal", "data": str(obj)}
        if module.startswith("pathlib") and "Path" in name:
            return {"__type__": "Path", "data": str(obj)}
        if module == "numpy" or module.startswith("numpy."):
            return SafeSerializer._numpy_to_json_safe(obj)
        if _is_pil_image(obj):
            buffer = BytesIO()
            obj.save(buffer, format="PNG")
            return {"__type__": "PIL.Image", "data": base64.b64encode(buffer.getvalue()).decode()}
        if _is_agent_type(obj):  # AgentText, AgentImage, AgentAudio: their plain value
            return SafeSerializer.to_json_safe(obj.to_raw())
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            fields = {
                f.name: SafeSerializer.to_json_safe(getattr(obj, f.name)) for f in dataclasses.fields(obj)
            }
            return {"__type__": "dataclass", "class_name": name, "module": module, "data": fields}
        raise SerializationError(f"Cannot safely serialize object of type {name}")

    @staticmethod
    def _numpy_to_json_safe(obj: Any) -> Any:
        import numpy

        if type(obj) is numpy.ndarray and obj.dtype.kind in "biufcUS":
            data = SafeSerializer.to_json_safe(obj.tolist())
            return {"__type__": "ndarray", "data": data, "dtype": str(obj.dtype)}
        if isinstance(obj, numpy.integer | numpy.floating | numpy.bool_ | numpy.complexfloating):
            return SafeSerializer.to_json_safe(obj.item())
        raise SerializationError(f"Cannot safely serialize object of type {type(obj).__name__}")

    @staticmethod
    def from_json_safe(obj: Any) -> Any:
        """The value a `to_json_safe` representation stands for (see `from_json_safe`)."""
        return from_json_safe(obj)

    @staticmethod
    def dumps(obj: Any, allow_pickle: bool = False) -> str:
        """`"safe:" + JSON`; with `allow_pickle=True`, a value JSON cannot hold is pickled, with a warning."""
        try:
            return SafeSerializer.SAFE_PREFIX + json.dumps(SafeSerializer.to_json_safe(obj))
        except SerializationError:
            if not allow_pickle:
                raise
        warnings.warn(
            "Falling back to insecure pickle serialization: whoever loads this data runs whatever it "
            "says. Use safe types (primitives, collections, numpy arrays, PIL images, datetimes, "
            "dataclasses) instead.",
            FutureWarning,
            stacklevel=2,
        )
        try:
            return SafeSerializer.PICKLE_PREFIX + base64.b64encode(pickle.dumps(obj)).decode()
        except (pickle.PicklingError, TypeError, AttributeError) as error:
            raise SerializationError(f"Cannot serialize object: {error}") from error

    @staticmethod
    def loads(data: str, allow_pickle: bool = False) -> Any:
        """The value `dumps` wrote. Pickle (`"pickle:"` or unprefixed legacy data) needs `allow_pickle=True`."""
        if data.startswith(SafeSerializer.SAFE_PREFIX):
            return from_json_safe(json.loads(data[len(SafeSerializer.SAFE_PREFIX) :]))
        prefixed = data.startswith(SafeSerializer.PICKLE_PREFIX)
        if not allow_pickle:
            legacy = "" if prefixed else " (legacy format, no prefix)"
            raise SerializationError(
                f"Pickle data rejected{legacy}: loading pickle runs whatever code it holds. Pass "
                "allow_pickle=True only for data you produced yourself."
            )
        warnings.warn(
            "Deserializing pickle data: this runs whatever code the data holds; a security risk if the "
            "data is untrusted.",
            FutureWarning,
            stacklevel=2,
        )
        payload = data[len(SafeSerializer.PICKLE_PREFIX) :] if prefixed else data
        return pickle.loads(base64.b64decode(payload))

    @staticmethod
    def get_deserializer_code(allow_pickle: bool) -> str:
        """Python source defining `_deserialize(data)`, to run inside a sandbox; pickle as `allow_pickle` says."""
        decoder = inspect.getsource(from_json_safe).replace("from_json_safe(", "_from_json_safe(")
        pickle_branch = (
            "    import pickle\n    return pickle.loads(base64.b64decode(payload))\n"
            if allow_pickle
            else '    raise SerializationError("Pickle data rejected: allow_pickle=False")\n'
        )
        return (
            "from __future__ import annotations\n\nimport base64\nfrom typing import Any\n\n\nclass SerializationError(Exception):\n    pass\n\n\n"
            + textwrap.dedent(decoder)
            + "\n\ndef _deserialize(data):\n"
            "    import json\n"
            '    if isinstance(data, str) and data.startswith("safe:"):\n'
            "        return _from_json_safe(json.loads(data[5:]))\n"
            '    payload = data[7:] if data.startswith("pickle:") else data\n' + pickle_branch
        )

    @staticmethod
    def get_safe_serializer_code() -> str:
        """Python source defining `SerializationError` and a `SafeSerializer` with `dumps`/`loads`, for sandboxes."""
        body = inspect.getsource(SafeSerializer)
        header = (
            "from __future__ import annotations\n\nimport base64\nimport dataclasses\nimport inspect\n"
            "import json\nimport pickle\nimport textwrap\nimport warnings\nfrom io import BytesIO\n"
            "from typing import Any, ClassVar\n"
        )
        helpers = "".join(
            inspect.getsource(function) + "\n\n" for function in (_is_pil_image, from_json_safe)
        )
        return header + "\n\nclass SerializationError(Exception):\n    pass\n\n\n" + helpers + body


def _is_pil_image(obj: Any) -> bool:
    """True for a PIL image, without importing PIL when no PIL object can exist."""
    import sys

    image_module = sys.modules.get("PIL.Image")
    return image_module is not None and isinstance(obj, image_module.Image)


def _is_agent_type(obj: Any) -> bool:
    """True for smol's agent values (`AgentText`, `AgentImage`, `AgentAudio`), without importing them."""
    import sys

    agent_types = sys.modules.get("smol_core.agent_types")
    return agent_types is not None and isinstance(obj, agent_types.AgentType)
