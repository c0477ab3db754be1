"""llama.cpp's fitting of the model to GPU memory runs only where there is a GPU to fit it to.

Its dry run took a quarter of the embedded model's load on a CPU (0.1 s of 0.4), with nothing to
fit there; on a machine with a GPU it chooses how many layers go to it, as llama.cpp's own default.
"""

from __future__ import annotations

import pytest
import xllamacpp
from smol_model_llamacpp import engine
from smol_model_llamacpp.engine import EngineSettings, build_params, has_gpu


def _with_gpu(xlc: object) -> bool:
    return True


def test_this_machine_has_no_gpu_for_llama_cpp_and_fitting_is_off() -> None:
    devices = xllamacpp.get_device_info()
    assert devices and all(device["type"].name.endswith(("CPU", "ACCEL")) for device in devices)
    assert has_gpu(xllamacpp) is False
    assert build_params(EngineSettings(model_path="unused.gguf")).fit_params is False


def test_with_a_gpu_llama_cpp_fits_as_it_always_did(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "has_gpu", _with_gpu)
    assert build_params(EngineSettings(model_path="unused.gguf")).fit_params is True
    # layers kept off the GPU by the user: nothing to fit either
    assert build_params(EngineSettings(model_path="unused.gguf", n_gpu_layers=0)).fit_params is False


def test_a_wheel_that_cannot_list_its_devices_keeps_llama_cpps_default() -> None:
    class OldWheel:
        def get_device_info(self) -> list[object]:
            raise RuntimeError("not built with it")

    assert has_gpu(OldWheel()) is True
