"""Text metrics of the CAM, ClaimDiff and CQs-Gen papers as plain functions.

The evaluate modules in ``metrics/<name>/`` declare features and call these; every number is
defined in the module's card. Citations are read by :mod:`argbench.citations`, tokens by
:mod:`argbench.tokenize` (rationales) or whitespace (argument overlap, as the CAM notebook).
"""

from __future__ import annotations

import gzip
import io
import lzma
import math
from collections.abc import Callable, Sequence

from argbench.citations import notebook_citations, notebook_excerpts, parse_citations

__all__ = [
    "argument_relevance",
    "notebook_labels",
    "rationale_f1",
    "compression_ratio",
    "ngram_diversity",
    "cr_diversity",
    "argument_overlap",
    "numbered_arguments",
]


# ---- input validation (errors name the field and the example index) ----


def _check_same_length(**fields: Sequence) -> int:
    lengths = {}
    for name, values in fields.items():
        if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
            raise TypeError(f"{name} must be a list, got {type(values).__name__}")
        lengths[name] = len(values)
    if len(set(lengths.values())) > 1:
        shown = ", ".join(f"{k}={v}" for k, v in lengths.items())
        raise ValueError(f"inputs must have one entry per example; got lengths {shown}")
    n = next(iter(lengths.values()))
    if n == 0:
        raise ValueError(f"{', '.join(lengths)} are empty: nothing to score")
    return n


def _check_str(field: str, index: int, value) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{field}[{index}] must be a str, got {type(value).__name__}")
    return value


def _check_str_list(field: str, index: int, value) -> list[str]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"{field}[{index}] must be a list of str, got {type(value).__name__}")
    for j, item in enumerate(value):
        if not isinstance(item, str):
            raise TypeError(f"{field}[{index}][{j}] must be a str, got {type(item).__name__}")
    return list(value)


def _f1(p: float, r: float) -> float:
    return 0.0 if p == 0 or r == 0 else 2 * p * r / (p + r)


def _mean(values: list[float]) -> float:
    return math.fsum(values) / len(values) if values else float("nan")


# ---- CAM argument relevance (AR precision / recall / F1) ----


def argument_relevance(
    predictions: Sequence[str],
    references: Sequence[Sequence[int | None]],
    relevance_threshold: int = 2,
    semantics: str = "strict",
) -> dict:
    """Precision/recall/F1 of the arguments an answer cites against the relevant ones.

    ``references[i][N-1]`` is the relevance label of argument ``[N]`` of answer ``i`` (-1 or
    None: unknown). ``semantics="strict"`` reads citations with :func:`parse_citations` and
    scores an answer that cites nothing as 0/0/0; ``"notebook"`` reads them as the authors'
    notebook does and skips such answers. Both skip answers whose arguments hold no relevant
    one (recall is undefined) and report how many.
    """
    if semantics not in ("strict", "notebook"):
        raise ValueError(f'semantics must be "strict" or "notebook", got {semantics!r}')
    if isinstance(relevance_threshold, bool) or not isinstance(relevance_threshold, int):
        raise TypeError(f"relevance_threshold must be an int, got {relevance_threshold!r}")
    n = _check_same_length(predictions=predictions, references=references)
    precisions: list[float] = []
    recalls: list[float] = []
    f1s: list[float] = []
    counts = dict.fromkeys(
        ("n_without_citations", "n_without_relevant", "n_out_of_range", "n_unknown_cited"), 0
    )
    counts["n_unparsed"] = 0
    groups = generated = 0
    for i in range(n):
        answer = _check_str("predictions", i, predictions[i])
        labels = references[i]
        if isinstance(labels, (str, bytes)) or not isinstance(labels, Sequence):
            raise TypeError(
                f"references[{i}] must be a list of int labels, got {type(labels).__name__}"
            )
        for j, label in enumerate(labels):
            if label is not None and (isinstance(label, bool) or not isinstance(label, int)):
                raise TypeError(
                    f"references[{i}][{j}] must be an int label (-1 or None: unknown), "
                    f"got {label!r}"
                )
        excerpts = parse_citations(answer)  # descriptive counts use argbench's reading
        groups += len(excerpts)
        generated += sum(e.generated for e in excerpts)
        counts["n_unparsed"] += sum(len(e.unparsed) for e in excerpts)
        if semantics == "strict":
            used = {num for e in excerpts for num in e.numbers}
        else:
            used = {num for _, ids in notebook_citations(answer) for num in ids}
        relevant = {
            j + 1 for j, lab in enumerate(labels) if lab is not None and lab >= relevance_threshold
        }
        known = {j + 1 for j, lab in enumerate(labels) if lab is not None and lab >= 0}
        counts["n_out_of_range"] += sum(1 for u in used if not 1 <= u <= len(labels))
        counts["n_unknown_cited"] += sum(
            1 for u in used if 1 <= u <= len(labels) and u not in known
        )
        if not used:
            counts["n_without_citations"] += 1
        if not relevant:
            counts["n_without_relevant"] += 1
            continue
        if not used:
            if semantics == "notebook":
                continue
            precisions.append(0.0)
            recalls.append(0.0)
            f1s.append(0.0)
            continue
        hit = len(used & relevant)
        p, r = hit / len(used), hit / len(relevant)
        precisions.append(p)
        recalls.append(r)
        f1s.append(_f1(p, r))
    return {
        "precision": _mean(precisions),
        "recall": _mean(recalls),
        "f1": _mean(f1s),
        "n_answers": n,
        "n_scored": len(f1s),
        **counts,
        "generated_share": generated / groups if groups else 0.0,
    }


def notebook_labels(arguments: Sequence[str], labels: Sequence[int | None]) -> list[int | None]:
    """Labels as the authors' notebook sees them (to reproduce its printed numbers).

    The notebook matches ``arg.split('. ')[1]`` -- the text only up to its first ``". "`` --
    against the relevant texts, so an argument of several sentences counts as non-relevant
    (0) unless its first sentence is itself a relevant argument of the list.
    """
    relevant = {a for a, lab in zip(arguments, labels, strict=True) if lab is not None and lab >= 2}
    return [
        lab if ". " not in a else (3 if a.split(". ")[0] in relevant else 0)
        for a, lab in zip(arguments, labels, strict=True)
    ]


# ---- ClaimDiff rationales (ERASER IoU-F1, token F1) ----

Span = tuple[int, int]  # token indices, end exclusive


def _phrase_spans(
    phrases: list[str], context: str, tokens: list[Span], field: str, index: int
) -> set[Span]:
    """Token span of each phrase's first occurrence in the context."""
    spans: set[Span] = set()
    for j, phrase in enumerate(phrases):
        start = context.find(phrase) if phrase else -1
        if start < 0:
            raise ValueError(
                f"{field}[{index}][{j}] = {phrase!r} does not occur in contexts[{index}]; "
                "rationales must be substrings of their context (or pass no contexts)"
            )
        end = start + len(phrase)
        inside = [k for k, (a, b) in enumerate(tokens) if a < end and b > start]
        if inside:
            spans.add((inside[0], inside[-1] + 1))
    return spans


def rationale_f1(
    predictions: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
    contexts: Sequence[str] | None = None,
    iou_threshold: float = 0.5,
    tokenizer: str = "argbench",
) -> dict:
    """ERASER partial-match IoU-F1 (micro, macro) and per-example token F1 of rationale phrases.

    With ``contexts`` each phrase becomes the token span of its first occurrence in the
    context (ERASER's positional spans). Without, a phrase is the set of its token strings and
    an example's rationale tokens are the union of those sets (positions unknown).
    """
    from argbench.tokenize import get_tokenizer

    tok = get_tokenizer(tokenizer)
    if not 0 <= iou_threshold <= 1:
        raise ValueError(f"iou_threshold must be in [0, 1], got {iou_threshold!r}")
    if contexts is None:
        n = _check_same_length(predictions=predictions, references=references)
    else:
        n = _check_same_length(predictions=predictions, references=references, contexts=contexts)
    tp = n_pred = n_gold = 0
    macro_p: list[float] = []
    macro_r: list[float] = []
    tok_p: list[float] = []
    tok_r: list[float] = []
    tok_f: list[float] = []
    for i in range(n):
        pred = _check_str_list("predictions", i, predictions[i])
        gold = _check_str_list("references", i, references[i])
        if contexts is not None:
            context = _check_str("contexts", i, contexts[i])
            tokens = tok(context)
            pred_units = [
                set(range(*s)) for s in _phrase_spans(pred, context, tokens, "predictions", i)
            ]
            gold_units = [
                set(range(*s)) for s in _phrase_spans(gold, context, tokens, "references", i)
            ]
        else:
            pred_units = _unique_sets(_phrase_tokens(p, tok) for p in pred)
            gold_units = _unique_sets(_phrase_tokens(g, tok) for g in gold)
        # partial match: a predicted span is a hit when its best IoU with a gold span >= threshold
        hits = sum(
            1
            for p in pred_units
            if max((len(p & g) / len(p | g) for g in gold_units), default=0.0) >= iou_threshold
        )
        tp += hits
        n_pred += len(pred_units)
        n_gold += len(gold_units)
        if gold_units:
            macro_r.append(hits / len(gold_units))
        if pred_units:
            macro_p.append(hits / len(pred_units))
        # token level: sets of covered tokens
        pt = set().union(*pred_units)
        gt = set().union(*gold_units)
        if pt or gt:
            both = len(pt & gt)
            p = both / len(pt) if pt else 0.0
            r = both / len(gt) if gt else 0.0
            tok_p.append(p)
            tok_r.append(r)
            tok_f.append(_f1(p, r))
    micro_p = tp / n_pred if n_pred else 0.0
    micro_r = tp / n_gold if n_gold else 0.0
    mp = _mean(macro_p) if macro_p else 0.0
    mr = _mean(macro_r) if macro_r else 0.0
    return {
        "iou_f1": _f1(micro_p, micro_r),
        "iou_precision": micro_p,
        "iou_recall": micro_r,
        "iou_f1_macro": _f1(mp, mr),
        "iou_precision_macro": mp,
        "iou_recall_macro": mr,
        "token_f1": _mean(tok_f),
        "token_precision": _mean(tok_p),
        "token_recall": _mean(tok_r),
        "n_examples": n,
        "n_token_scored": len(tok_f),
    }


def _phrase_tokens(phrase: str, tok: Callable) -> frozenset:
    return frozenset(phrase[a:b] for a, b in tok(phrase) if not phrase[a:b].isspace())


def _unique_sets(sets) -> list[set]:
    """Distinct non-empty sets, first-seen order (ERASER collapses duplicate spans)."""
    return [set(s) for s in dict.fromkeys(s for s in sets if s)]


# ---- CQs-Gen diversity ----


def _joined(predictions: Sequence[str]) -> str:
    if isinstance(predictions, (str, bytes)) or not isinstance(predictions, Sequence):
        raise TypeError(f"predictions must be a list of str, got {type(predictions).__name__}")
    if len(predictions) == 0:
        raise ValueError("predictions is empty: nothing to measure")
    for i, text in enumerate(predictions):
        _check_str("predictions", i, text)
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


def diversity_reference() -> tuple[Callable, Callable] | None:
    """diversity 0.3.1's ``compression_ratio`` and ``ngram_diversity_score``, which our values
    must equal (for tests and benchmarks); loaded without the package's ``__init__``, which
    downloads NLTK data. None when the package is not installed."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("diversity")
    if spec is None:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    functions = []
    for name, func in (
        ("compression", "compression_ratio"),
        ("ngram_diversity", "ngram_diversity_score"),
    ):
        sub = importlib.util.spec_from_file_location(f"_diversity_{name}", folder / f"{name}.py")
        module = importlib.util.module_from_spec(sub)
        sub.loader.exec_module(module)
        functions.append(getattr(module, func))
    return functions[0], functions[1]


def cr_diversity(predictions: Sequence[str], algorithm: str = "gzip", num_n: int = 4) -> dict:
    """The CQs-Gen diversity figures of one system's generated texts."""
    ratio = compression_ratio(predictions, algorithm)
    return {
        "compression_ratio": ratio,
        "cr_diversity": 1 / ratio,
        "ngram_diversity": ngram_diversity(predictions, num_n),
    }


# ---- CAM argument overlap (Table 3: Jaccard text / sentence, Levenshtein; S-BERT hook) ----


def numbered_arguments(arguments: Sequence[str]) -> list[str]:
    """The ``"N. text"`` strings of the CAM files, rebuilt from texts without the prefix."""
    return [f"{k}. {text}" for k, text in enumerate(arguments, 1)]


def _jaccard(a: set, b: set) -> float:
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def argument_overlap(
    predictions: Sequence[str],
    references: Sequence[Sequence[str]],
    excerpts: str = "notebook",
    sentence_similarity: Callable[[list[str], list[str]], Sequence[Sequence[float]]] | None = None,
    model=None,
    embedding_options: dict | None = None,
) -> dict:
    """CAM Table 3 overlap of answers with their argument lists, as the authors' notebook.

    ``references[i]`` are answer i's arguments without the ``"N. "`` prefix (cam_answers'
    ``arguments``). ``jaccard_text``: whitespace-token Jaccard of the arguments joined with
    their ``"N. "`` prefixes vs the answer, mean over answers. Per excerpt (found with the
    notebook regex, or argbench's parser with ``excerpts="argbench"``): best Jaccard and
    smallest token edit distance to any argument, means over all excerpts pooled.
    Answers with an empty argument list are skipped and counted.

    ``sbert`` (the notebook's S-BERT column: mean over excerpts of the best similarity to a
    ``"N. "``-prefixed argument) needs one of two things. ``model`` (a sentence-transformers
    name, folder or model; ``embedding_options`` for :class:`argbench.embedding.Embedder`):
    all excerpts and numbered arguments of the whole input are encoded in one batched call,
    then scored by cosine. ``sentence_similarity(excerpts, numbered_arguments)``: called once
    per answer that has an argument list and at least one excerpt, with that answer's
    excerpts and its ``"N. text"`` arguments; returns one row per excerpt with one similarity
    per argument (higher = more similar).
    """
    from rapidfuzz.distance import Levenshtein

    if excerpts not in ("notebook", "argbench"):
        raise ValueError(f'excerpts must be "notebook" or "argbench", got {excerpts!r}')
    n = _check_same_length(predictions=predictions, references=references)
    if model is not None and sentence_similarity is not None:
        raise ValueError("pass model= or sentence_similarity=, not both")
    text_j: list[float] = []
    sent_j: list[float] = []
    levs: list[float] = []
    groups: list[tuple[list[str], list[str]]] = []  # per answer: (excerpts, numbered arguments)
    skipped = 0
    for i in range(n):
        answer = _check_str("predictions", i, predictions[i])
        arguments = _check_str_list("references", i, references[i])
        if not arguments:
            skipped += 1
            continue
        numbered = numbered_arguments(arguments)
        text_j.append(_jaccard(set(" ".join(numbered).split()), set(answer.split())))
        if excerpts == "notebook":
            found = [text for text, _ in notebook_excerpts(answer)]
        else:
            found = [e.text for e in parse_citations(answer) if e.text]
        if not found:
            continue
        # the notebook drops the "N." token: arg.split()[1:] == text.split()
        arg_tokens = [a.split() for a in arguments]
        arg_sets = [set(t) for t in arg_tokens]
        for excerpt in found:
            words = excerpt.split()
            sent_j.append(max(_jaccard(s, set(words)) for s in arg_sets))
            levs.append(min(Levenshtein.distance(t, words) for t in arg_tokens))
        groups.append((found, numbered))
    out = {
        "jaccard_text": _mean(text_j),
        "jaccard_sent": _mean(sent_j),
        "levenshtein": _mean(levs),
        "n_answers": n,
        "n_without_arguments": skipped,
        "n_excerpts": len(sent_j),
    }
    if model is not None:
        from argbench.embedding import CosineSimilarity

        everything = [text for found, numbered in groups for text in (*found, *numbered)]
        sentence_similarity = CosineSimilarity(model, everything, **(embedding_options or {}))
    if sentence_similarity is not None:
        sims = [float(max(row)) for g in groups for row in sentence_similarity(*g)]
        out["sbert"] = _mean(sims)
    return out
