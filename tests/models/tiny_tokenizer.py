"""A 400-token byte-level BPE tokenizer with a chat template, trained on the spot.

The tiny random models of the Transformers and MLX tests need a real tokenizer, not a download: this
one trains in milliseconds and covers every byte, so any text round-trips.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

CHAT_TEMPLATE = (
    "{% if tools %}<|system|>Tools: {% for t in tools %}{{ t.function.name }} {% endfor %}<|end|>{% endif %}"
    "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}<|end|>{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
CORPUS = [
    "the quick brown fox jumps over the lazy dog",
    "Thought: I will compute the answer with code. Observation: 4. Final answer: 4",
    "def add(a, b): return a + b  # python code 0123456789",
] * 20
SPECIALS = ["<|end|>", "<|system|>", "<|user|>", "<|assistant|>", "<pad>"]


def save_tiny_tokenizer(folder: Path) -> Any:
    """Train the tokenizer, save it (with its chat template) in `folder`, and return it."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    raw = Tokenizer(models.BPE())
    raw.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    raw.decoder = decoders.ByteLevel()
    raw.train_from_iterator(
        CORPUS,
        trainers.BpeTrainer(
            vocab_size=400,
            special_tokens=SPECIALS,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        ),
    )
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=raw, eos_token="<|end|>", pad_token="<pad>")
    tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.save_pretrained(folder)
    return tokenizer
