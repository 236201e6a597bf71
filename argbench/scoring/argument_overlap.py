"""CAM Table 3 overlap of answers with their argument lists (Jaccard, Levenshtein, S-BERT)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from argbench.citations import notebook_excerpts, parse_citations
from argbench.scoring._checks import check_same_length, check_str, check_str_list, mean_or_nan
from argbench.scoring.declaration import Figure, Headline, Metric
from argbench.signature import Signature, callable_name

# the metric's features (see argbench.scoring): one example = one value of each
INPUTS = {"predictions": "string", "references": ["string"]}

METRIC = Metric(
    inputs=INPUTS,
    columns={"predictions": "answer", "references": "arguments"},
    headline=Headline("jaccard_text", "jaccard_text", True),
    figures={"overlap_jaccard": Figure("jaccard_text")},
    argument_lists=True,
)


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
    n = check_same_length(predictions=predictions, references=references)
    if model is not None and sentence_similarity is not None:
        raise ValueError("pass model= or sentence_similarity=, not both")
    text_j: list[float | None] = []  # per answer; None: no argument list
    sent_j: list[float] = []
    levs: list[float] = []
    groups: list[tuple[list[str], list[str]]] = []  # per answer: (excerpts, numbered arguments)
    skipped = 0
    for i in range(n):
        answer = check_str("predictions", i, predictions[i])
        arguments = check_str_list("references", i, references[i])
        if not arguments:
            skipped += 1
            text_j.append(None)
            continue
        numbered = numbered_arguments(arguments)
        text_j.append(_jaccard(set(" ".join(numbered).split()), set(answer.split())))
        if excerpts == "notebook":
            found = [text for text, _ in notebook_excerpts(answer)]
        else:
            found = [e.text for e in parse_citations(answer, f"predictions[{i}]") if e.text]
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
        "jaccard_text": mean_or_nan([j for j in text_j if j is not None]),
        "jaccard_sent": mean_or_nan(sent_j),
        "levenshtein": mean_or_nan(levs),
        "n_answers": n,
        "n_without_arguments": skipped,
        "n_excerpts": len(sent_j),
    }
    sbert = "none"
    if model is not None:
        from argbench.embedding import CosineSimilarity

        everything = [text for found, numbered in groups for text in (*found, *numbered)]
        sentence_similarity = CosineSimilarity(model, everything, **(embedding_options or {}))
        sbert = sentence_similarity.embedder.signature
    elif sentence_similarity is not None:
        sbert = callable_name(sentence_similarity)
    if sentence_similarity is not None:
        sims = [float(max(row)) for g in groups for row in sentence_similarity(*g)]
        out["sbert"] = mean_or_nan(sims)
    fields = [("excerpts", excerpts), ("tok", "whitespace"), ("sbert", sbert)]
    out["signature"] = Signature("argument_overlap", fields).render()
    out["per_item"] = {"jaccard_text": text_j}
    return out
