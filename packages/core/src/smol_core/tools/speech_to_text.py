"""`SpeechToTextTool`: transcribe audio with a Whisper model through `transformers`.

Why here: smolagents users import it from the top-level package and list it among an agent's tools,
so the class imports and validates without any heavy dependency. The model is loaded on the first
call (`setup`), which needs `transformers` and `torch`: the `smol-model-transformers` plugin brings
both (`pip install "smol-core[transformers]"`); without them the first call raises an error that
says so. The methods import what they use themselves, so the tool's source also saves and loads
on its own (`Tool.save`, `validate_tool_attributes`).
"""

from __future__ import annotations

from typing import Any

from smol_core.tools.tool import Tool


class SpeechToTextTool(Tool):
    """Transcribes audio (a path, WAV bytes, an array or an `AgentAudio`) to text with Whisper.

    `model` is a checkpoint name or a loaded `WhisperForConditionalGeneration`; `pre_processor` a
    checkpoint name or a loaded `WhisperProcessor` (defaults to `model`'s). Nothing is downloaded
    or loaded until the first call.
    """

    default_checkpoint = "openai/whisper-large-v3-turbo"
    name = "transcriber"
    description = "This is a tool that transcribes an audio into text. It returns the transcribed text."
    inputs = {
        "audio": {
            "type": "audio",
            "description": "The audio to transcribe: a local file's path, WAV bytes or an array of samples.",
        }
    }
    output_type = "string"

    def __init__(
        self,
        model: Any = None,
        pre_processor: Any = None,
        device: Any = None,
        model_kwargs: Any = None,
        token: Any = None,
    ) -> None:
        super().__init__()
        self.model: Any = model if model is not None else self.default_checkpoint
        self.pre_processor: Any = pre_processor if pre_processor is not None else self.model
        self.device = device
        self.model_kwargs = dict(model_kwargs or {})
        self.token = token

    def setup(self) -> None:
        """Load the processor and the model (once), on the device given or the best one available."""
        try:
            from transformers.models.whisper import WhisperForConditionalGeneration, WhisperProcessor
        except ImportError as error:
            from smol_core.install_advice import install_hint
            from smol_core.plugins.lazy import MissingPluginError

            raise MissingPluginError(
                "SpeechToTextTool runs Whisper through transformers and torch, which are not installed; the "
                f"plugin package smol-model-transformers brings them: {install_hint('smol-model-transformers')}"
            ) from error
        import torch

        self.pre_processor_class = WhisperProcessor
        self.model_class = WhisperForConditionalGeneration
        if isinstance(self.pre_processor, str):
            self.pre_processor = WhisperProcessor.from_pretrained(self.pre_processor, token=self.token)
        if isinstance(self.model, str):
            self.model = WhisperForConditionalGeneration.from_pretrained(
                self.model, token=self.token, **self.model_kwargs
            )
        if self.device is None:
            self.device = "cuda" if torch.cuda.is_available() else "cpu"
        self.model.to(self.device)
        self.model.eval()
        self.is_initialized = True

    def forward(self, audio: Any) -> str:
        import torch

        from smol_core.agent_types import AgentAudio

        sound = audio if isinstance(audio, AgentAudio) else AgentAudio(audio)
        samples = sound.to_raw()
        if samples.ndim > 1:  # frames x channels: Whisper hears one channel
            samples = samples.mean(axis=1)
        rate = self.pre_processor.feature_extractor.sampling_rate
        if sound.samplerate != rate:  # Whisper hears 16 kHz: resample linearly
            import numpy

            count = round(len(samples) * rate / sound.samplerate)
            samples = numpy.interp(
                numpy.linspace(0, len(samples) - 1, count), numpy.arange(len(samples)), samples
            )
        features = self.pre_processor(samples, sampling_rate=rate, return_tensors="pt")
        with torch.no_grad():
            tokens = self.model.generate(features["input_features"].to(self.device))
        return str(self.pre_processor.batch_decode(tokens, skip_special_tokens=True)[0])
