"""CQs-Gen diversity of generated texts: compression ratio (CR-div) and n-gram diversity.

Both read the space-joined texts in pieces of ``_CHUNK`` texts, never as one string: a million
texts cost the compressor state and one integer per token, not copies of the corpus.
"""

from __future__ import annotations

import gzip
import itertools
import lzma
import math
import struct
import time
import zlib
from collections import defaultdict
from collections.abc import Iterator, Sequence

from argbench.scoring._checks import check_str
from argbench.scoring.declaration import Metric
from argbench.signature import Signature

# the metric's features (see argbench.scoring): one example = one value of each
INPUTS = {"predictions": "string"}

METRIC = Metric(
    inputs=INPUTS, columns={"predictions": "cq"}, measurement=True, submission_field="cqs"
)

_CHUNK = 10_000  # texts per piece: big enough for C-speed joins, small next to a corpus


def _pieces(predictions: Sequence[str]) -> Iterator[str]:
    """The texts joined with single spaces, yielded in pieces to be joined again with one space.

    " ".join(texts).split(" ") is the concatenation of the pieces' splits, so both measures can
    work piece by piece. Checked up front (type, emptiness) and while joining (a non-str item).
    """
    if isinstance(predictions, (str, bytes)) or not isinstance(predictions, Sequence):
        raise TypeError(f"predictions must be a list of str, got {type(predictions).__name__}")
    if len(predictions) == 0:
        raise ValueError("predictions is empty: nothing to measure")

    def pieces():
        texts = iter(predictions)
        for start in range(0, len(predictions), _CHUNK):
            chunk = list(itertools.islice(texts, _CHUNK))
            try:
                yield " ".join(chunk)
            except TypeError:  # join names no index: find it
                for i, text in enumerate(chunk, start):
                    check_str("predictions", i, text)
                raise

    return pieces()


def _encoded(predictions: Sequence[str]) -> Iterator[bytes]:
    """The UTF-8 bytes of the space-joined texts (what the package writes), piece by piece."""
    pieces = _pieces(predictions)  # checks now, not at the first piece

    def encoded():
        for k, piece in enumerate(pieces):
            try:
                data = piece.encode("utf-8")
            except UnicodeEncodeError:
                for i in range(k * _CHUNK, min((k + 1) * _CHUNK, len(predictions))):
                    try:
                        predictions[i].encode("utf-8")
                    except UnicodeEncodeError as error:
                        raise ValueError(
                            f"predictions[{i}] has no UTF-8 bytes to compress ({error.reason})"
                        ) from None
                raise
            yield data if k == 0 else b" " + data

    return encoded()


class _ByteCounter:
    """A write-only file that keeps only the number of bytes written to it."""

    def __init__(self):
        self.size = 0

    def write(self, data) -> int:
        self.size += len(data)
        return len(data)

    def flush(self) -> None:
        pass


def _gzip_twice_size(pieces: Iterator[bytes]) -> tuple[int, int]:
    """(input bytes, file bytes) of ``diversity`` 0.3.1's gzip measure, streamed.

    The package writes ``gzip.compress(text)`` (level 9, header stamped with the clock) through
    ``GzipFile("compressed.gz")``: the inner stream (header, raw deflate, CRC + length trailer)
    is built here piece by piece and fed to the same ``GzipFile`` as it comes. zlib's output does
    not depend on how its input is split, so the bytes are the package's.
    """
    sink = _ByteCounter()
    inner = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    crc = size = 0
    with gzip.GzipFile(filename="compressed.gz", mode="wb", fileobj=sink, mtime=0) as outer:
        outer.write(struct.pack("<BBBBLBB", 0x1F, 0x8B, 8, 0, int(time.time()), 2, 255))
        for data in pieces:
            crc, size = zlib.crc32(data, crc), size + len(data)
            outer.write(inner.compress(data))
        outer.write(inner.flush() + struct.pack("<LL", crc, size & 0xFFFFFFFF))
    return size, sink.size


def compression_ratio(predictions: Sequence[str], algorithm: str = "gzip") -> float:
    """Size of the space-joined texts / size compressed (higher = more repetitive).

    ``gzip`` measures what ``diversity`` 0.3.1 measures: the text gzipped (level 9), then
    written through a ``GzipFile`` named ``compressed.gz`` (so gzipped twice, with the 11-byte
    file-name header); ``xz`` is one ``lzma`` .xz stream (preset 6), as ``diversity``;
    ``zstd`` is one streamed zstandard frame at level 3 (not in ``diversity``).
    """
    pieces = _encoded(predictions)
    if algorithm == "gzip":
        size, compressed = _gzip_twice_size(pieces)
    elif algorithm in ("xz", "zstd"):
        if algorithm == "xz":
            compressor = lzma.LZMACompressor()
        else:
            import zstandard

            compressor = zstandard.ZstdCompressor(level=3).compressobj()
        size = compressed = 0
        for data in pieces:
            size += len(data)
            compressed += len(compressor.compress(data))
        compressed += len(compressor.flush())
    else:
        raise ValueError(f'algorithm must be "gzip", "zstd" or "xz", got {algorithm!r}')
    if size == 0:
        raise ValueError("predictions hold only empty strings: the compression ratio is undefined")
    return size / compressed


def ngram_diversity(predictions: Sequence[str], num_n: int = 4) -> float:
    """Sum over n = 1..num_n of distinct n-grams / all n-grams, as ``diversity`` computes it.

    Tokens are the space-joined texts split on single spaces (n-grams cross text boundaries).
    Counted exactly on integer ids, never on strings: tokens get vocabulary ids piece by piece;
    an n-gram is the pair of ids of its two overlapping L-grams (L the largest power of two
    below n), and the ids of the L-grams are the ranks of their own pairs among the distinct
    ones. Ids stay below the number of tokens, so pairs fit int64.
    """
    import numpy as np

    if isinstance(num_n, bool) or not isinstance(num_n, int) or num_n < 1:
        raise ValueError(f"num_n must be a positive int, got {num_n!r}")
    vocabulary = defaultdict(itertools.count().__next__)  # token -> id in order of appearance
    parts = []
    for piece in _pieces(predictions):
        tokens = piece.split(" ")
        parts.append(np.fromiter(map(vocabulary.__getitem__, tokens), np.int32, len(tokens)))
    grams = np.concatenate(parts)  # id of the width-gram starting at each position
    del parts
    n_tokens, size, width = len(grams), len(vocabulary), 1
    if n_tokens < num_n:
        raise ValueError(
            f"predictions hold {n_tokens} space-separated tokens; ngram_diversity needs at "
            f"least num_n={num_n}"
        )
    ratios = [size / n_tokens]
    for n in range(2, num_n + 1):
        count = n_tokens - n + 1
        keys = np.multiply(grams[:count], size, dtype=np.int64)
        keys += grams[n - width :]
        if n == 2 * width and n < num_n:  # these n-grams are the halves of the longer ones
            grams, size = _ranks(keys)
            width = n
            ratios.append(size / count)
        else:
            keys.sort()
            ratios.append((1 + np.count_nonzero(keys[1:] != keys[:-1])) / count)
        del keys
    return math.fsum(ratios)


def _ranks(keys):
    """Dense ids of int64 keys (equal keys, equal ids) and the number of distinct keys:
    np.unique(return_inverse=True) in less memory (int32 ids below 2**31 keys)."""
    import numpy as np

    order = np.argsort(keys)
    ordered = keys[order]
    new = np.empty(len(keys), bool)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    del ordered
    dtype = np.int32 if len(keys) < 2**31 else np.int64
    ranks = np.cumsum(new, dtype=dtype)
    ranks -= 1
    ids = np.empty(len(keys), dtype)
    ids[order] = ranks
    return ids, int(ranks[-1]) + 1


EMPTY = ("exclude", "error", "keep")


def cr_diversity(
    predictions: Sequence[str], algorithm: str = "gzip", num_n: int = 4, empty: str = "exclude"
) -> dict:
    """The CQs-Gen diversity figures of one system's generated texts.

    ``empty``: what an empty or whitespace-only text means. ``"exclude"`` (default): left out,
    and ``n_empty`` says how many (``diversity`` 0.3.1 joins them in as bare spaces, which
    compress badly, so a system answering "" scored as highly diverse); ``"error"``: refused;
    ``"keep"``: as ``diversity`` does. Corpus-level numbers: no per-item scores (see the card
    on comparing systems)."""
    if empty not in EMPTY:
        raise ValueError(f"empty must be one of {', '.join(EMPTY)}, got {empty!r}")
    if isinstance(predictions, (str, bytes)) or not isinstance(predictions, Sequence):
        raise TypeError(f"predictions must be a list of str, got {type(predictions).__name__}")
    blank = [i for i, t in enumerate(predictions) if isinstance(t, str) and not t.strip()]
    if blank and empty == "error":
        raise ValueError(
            f"predictions[{blank[0]}] is empty ({len(blank)} empty text(s)): an empty text has "
            "no defined diversity; pass empty='exclude' to leave them out"
        )
    if blank and empty == "exclude":
        if len(blank) == len(predictions):
            raise ValueError(f"all {len(predictions)} predictions are empty: nothing to measure")
        skip = set(blank)
        predictions = [t for i, t in enumerate(predictions) if i not in skip]
    ratio = compression_ratio(predictions, algorithm)
    return {
        "compression_ratio": ratio,
        "cr_diversity": 1 / ratio,
        "ngram_diversity": ngram_diversity(predictions, num_n),
        "n_texts": len(predictions),
        "n_empty": len(blank),
        "signature": Signature(
            "cr_diversity", [("compressor", algorithm), ("ngram_n", num_n), ("empty", empty)]
        ).render(),
    }
