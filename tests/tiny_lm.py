"""A tiny causal LM built on the spot (random weights, a byte-level BPE tokenizer trained
here): a real model for real harness runs, with no download."""

from __future__ import annotations

from pathlib import Path

TEXT = [
    "Is the argument sound? Does the evidence support the claim?",
    "Claim A strengthens claim B. Answer yes or no.",
    "Cats are smarter than dogs [1]. Python is better than Java [2].",
]


def build_tiny_lm(
    folder: Path, seed: int = 0, positions: int = 4096, never_blank: bool = False
) -> Path:
    """Save a 1-layer GPT-2 (random weights, ``seed``) and its tokenizer to ``folder``.

    ``never_blank``: its generation config suppresses the end-of-text token and every
    whitespace-only token, so greedy generation writes text (random weights otherwise often
    start with a newline or the end token: every generation empty, a run argbench refuses as
    degenerate)."""
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(TEXT * 20, vocab_size=300, special_tokens=["<|endoftext|>"])
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe, eos_token="<|endoftext|>", bos_token="<|endoftext|>"
    )
    tokenizer.model_max_length = positions
    tokenizer.save_pretrained(folder)
    torch.manual_seed(seed)
    config = GPT2Config(
        vocab_size=len(tokenizer),
        n_positions=positions,
        n_embd=32,
        n_layer=1,
        n_head=2,
        bos_token_id=tokenizer.eos_token_id,
        eos_token_id=tokenizer.eos_token_id,
    )
    model = GPT2LMHeadModel(config)
    if never_blank:
        blank = [i for i in range(len(tokenizer)) if not tokenizer.decode([i]).strip()] + [
            tokenizer.eos_token_id
        ]
        model.generation_config.suppress_tokens = sorted(set(blank))
    model.save_pretrained(folder)
    return folder
