"""CQs-Gen diversity of generated texts: compression ratio (CR-div) and n-gram diversity."""

from __future__ import annotations

import gzip
import io
import lzma
import math
from collections.abc import Sequence

from argbench.scoring._checks import check_str
from argbench.signature import Signature

# the metric's features (see argbench.scoring): one example = one value of each
INPUTS = {"predictions": "string"}


def _joined(predictions: Sequence[str]) -> str:
    if isinstance(predictions, (str, bytes)) or not isinstance(predictions, Sequence):
        raise TypeError(f"predictions must be a list of str, got {type(predictions).__name__}")
    if len(predictions) == 0:
        raise ValueError("predictions is empty: nothing to measure")
    for i, text in enumerate(predictions):
        check_str("predictions", i, text)
    return " ".join(predictions)


def compression_ratio(predictions: Sequence[str], algorithm: str = "gzip") -> float:
    """Size of the space-joined texts / size compressed (higher = more repetitive).

    ``gzip`` measures what ``diversity`` 0.3.1 measures: the text gzipped (level 9), then
    written through a ``GzipFile`` named ``compressed.gz`` (so gzipped twice, with the 11-byte
    file-name header); ``xz`` is one ``lzma`` .xz stream (preset 6), as ``diversity``;
    ``zstd`` is one zstandard frame at level 3 (not in ``diversity``).
    """
    data = _joined(predictions).encode("utf-8")
    if not data:
        raise ValueError("predictions hold only empty strings: the compression ratio is undefined")
    if algorithm == "gzip":
        buffer = io.BytesIO()
        with gzip.GzipFile(filename="compressed.gz", mode="wb", fileobj=buffer, mtime=0) as f:
            f.write(gzip.compress(data, compresslevel=9))
        size = buffer.getbuffer().nbytes
    elif algorithm == "xz":
        size = len(lzma.compress(data))
    elif algorithm == "zstd":
        import zstandard

        size = len(zstandard.ZstdCompressor(level=3).compress(data))
    else:
        raise ValueError(f'algorithm must be "gzip", "zstd" or "xz", got {algorithm!r}')
    return len(data) / size


def ngram_diversity(predictions: Sequence[str], num_n: int = 4) -> float:
    """Sum over n = 1..num_n of distinct n-grams / all n-grams, as ``diversity`` computes it.

    Tokens are the space-joined texts split on single spaces (n-grams cross text boundaries).
    Counted on integer ids, not tuples of strings: an n-gram's id is the rank of
    (id of its first n-1 tokens, id of its last token), so ids stay below N² (exact, no hashing).
    """
    import numpy as np

    if isinstance(num_n, bool) or not isinstance(num_n, int) or num_n < 1:
        raise ValueError(f"num_n must be a positive int, got {num_n!r}")
    tokens = _joined(predictions).split(" ")
    n_tokens = len(tokens)
    if n_tokens < num_n:
        raise ValueError(
            f"predictions hold {n_tokens} space-separated tokens; ngram_diversity needs at "
            f"least num_n={num_n}"
        )
    vocabulary = {token: i for i, token in enumerate(dict.fromkeys(tokens))}
    words = np.fromiter(map(vocabulary.__getitem__, tokens), dtype=np.int64, count=n_tokens)
    size = len(vocabulary)
    ratios = [size / n_tokens]
    grams = words  # id of the n-gram starting at each position
    for n in range(2, num_n + 1):
        keys = grams[:-1] * size + words[n - 1 :]
        if n < num_n:
            distinct, grams = np.unique(keys, return_inverse=True)
        else:
            distinct = np.unique(keys)
        ratios.append(len(distinct) / (n_tokens - n + 1))
    return math.fsum(ratios)


def cr_diversity(predictions: Sequence[str], algorithm: str = "gzip", num_n: int = 4) -> dict:
    """The CQs-Gen diversity figures of one system's generated texts.

    Corpus-level numbers: no per-item scores (see the card on comparing systems)."""
    ratio = compression_ratio(predictions, algorithm)
    return {
        "compression_ratio": ratio,
        "cr_diversity": 1 / ratio,
        "ngram_diversity": ngram_diversity(predictions, num_n),
        "signature": Signature(
            "cr_diversity", [("compressor", algorithm), ("ngram_n", num_n)]
        ).render(),
    }
