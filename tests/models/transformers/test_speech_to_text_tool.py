"""`SpeechToTextTool` end to end on a tiny random Whisper (a real model made on the spot, no download).

The processor is a small stand-in around Whisper's real feature extractor (a real WhisperProcessor
needs a tokenizer's files); the model, its device placement and `generate` are transformers' own.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pytest

from smol_core import SpeechToTextTool
from smol_core.agent_types import write_wav

pytest.importorskip("transformers")


class TinyProcessor:
    """What the tool uses of a WhisperProcessor: the feature extractor, calling it, batch_decode."""

    def __init__(self) -> None:
        from transformers import WhisperFeatureExtractor

        self.feature_extractor = WhisperFeatureExtractor()
        self.seen_lengths: list[int] = []

    def __call__(self, samples: Any, sampling_rate: int, return_tensors: str) -> Any:
        self.seen_lengths.append(len(samples))
        return self.feature_extractor(samples, sampling_rate=sampling_rate, return_tensors=return_tensors)

    def batch_decode(self, tokens: Any, skip_special_tokens: bool) -> list[str]:
        return [" ".join(str(int(t)) for t in row if int(t) > 2) for row in tokens]


def tiny_whisper() -> Any:
    import torch
    from transformers import WhisperConfig, WhisperForConditionalGeneration

    torch.manual_seed(0)
    config = WhisperConfig(
        vocab_size=60,
        d_model=16,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=16,
        decoder_ffn_dim=16,
        max_target_positions=8,
        decoder_start_token_id=1,
        pad_token_id=0,
        eos_token_id=2,
        bos_token_id=1,
    )
    return WhisperForConditionalGeneration(config)


def test_transcribes_wav_bytes_resampled_to_16_khz() -> None:
    processor = TinyProcessor()
    tool = SpeechToTextTool(model=tiny_whisper(), pre_processor=processor, device="cpu")
    buffer = io.BytesIO()
    write_wav(buffer, np.sin(np.linspace(0, 800, 8000)).astype(np.float32), 8000)  # type: ignore[arg-type]
    text = tool(buffer.getvalue())
    assert isinstance(text, str) and text  # the random model's tokens, decoded
    assert processor.seen_lengths == [16000]  # one second at 8 kHz, heard at 16 kHz
    assert tool(buffer.getvalue()) == text  # loaded once, greedy: the same again
