"""CQs-Gen reference-based evaluation: each generated question inherits the label of its most
similar reference question of the same intervention, or ``not_able_to_evaluate`` (NAE).

The STS matcher reproduces the public evaluation script's labels question by question (same
model, same threshold: cosine, first argmax, strict ``>``) while encoding every unique text
once, through :mod:`argbench.embedding`. See ``metrics/cq_reference_match/README.md``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from argbench.constants import CQ_LABELS
from argbench.constants import CQS_GEN_STS_MODEL as DEFAULT_MODEL  # the metric's default
from argbench.embedding import Embedder
from argbench.io import parse_json
from argbench.llm import PromptTemplate, check_on_failure, endpoint_from, settle_judgments
from argbench.scoring import Labels
from argbench.scoring.declaration import Figure, Headline, Metric
from argbench.signature import Signature, callable_name

# the metric's features (see argbench.scoring): one example = one value of each
INPUTS = {
    "predictions": ["string"],
    "references": [{"id": "string", "cq": "string", "label": Labels(CQ_LABELS)}],
}

METRIC = Metric(
    inputs=INPUTS,
    columns={
        "predictions": "cqs",
        "references": "references",
        "intervention_ids": "intervention_id",
    },
    headline=Headline("score", "score", True),
    figures={
        "cq_score": Figure("score"),
        "nae_rate": Figure("nae_rate", higher_is_better=False),
        "useful_rate": Figure("useful_rate"),
    },
    references_apart=True,
    max_questions=True,
)

__all__ = [
    "LABELS",
    "NAE",
    "MISSING",
    "DEFAULT_MODEL",
    "DEFAULT_PROMPT",
    "cq_reference_match",
    "read_submission",
    "threshold_field",
]

LABELS = list(CQ_LABELS)  # the cqs_gen ClassLabel order
NAE = "not_able_to_evaluate"
ISSUE = "evaluation_issue"  # an LLM reply that names no reference and is not the "not found" phrase
MISSING = "Missing CQs"
NOT_FOUND = "Similar reference not found."
QUESTIONS = 3  # questions a system is asked for per intervention; the score divides by it

DEFAULT_PROMPT = """\
You will compare one new critical question with a list of reference critical questions \
written for the same argument. Each reference has an ID.

Reference questions:
{references}

New question:
{question}

Find the reference question that asks for the same information as the new question: the same \
core meaning and the same intent, even if the wording differs. Reply with that reference's ID \
and nothing else. If no reference asks for the same information, reply exactly:
Similar reference not found.
Do not explain your answer."""


def check_threshold(threshold, where: str = "threshold") -> None:
    """The one check of an STS threshold (the metric and the agreement study share it): a
    finite cosine in [-1, 1], so ``65`` (a percentage), NaN or ``-5`` never score silently."""
    if isinstance(threshold, (bool, np.bool_)) or not (
        isinstance(threshold, (int, float, np.integer, np.floating)) and -1 <= threshold <= 1
    ):
        raise ValueError(
            f"{where} must be a cosine in [-1, 1], got {threshold!r} (0.65 is the paper's; "
            "not a percentage)"
        )


def threshold_field(threshold: float) -> str:
    """The ``thr`` value of the signature: the comparison and the threshold (``>0.65``)."""
    return f">{float(threshold)!r}"


def _label_name(value, label_names, where: str) -> str:
    if isinstance(value, (bool, np.bool_)) or value is None:
        raise ValueError(f"{where}: label must be a class index or name, got {value!r}")
    if isinstance(value, (int, np.integer)):
        if not 0 <= value < len(label_names):
            raise ValueError(
                f"{where}: label index {value} outside 0..{len(label_names) - 1} {label_names}"
            )
        return label_names[int(value)]
    if isinstance(value, str) and value in label_names:
        return value
    raise ValueError(f"{where}: label {value!r} is not one of {label_names}")


def _check_references(references, label_names) -> list[list[dict]]:
    checked = []
    for i, refs in enumerate(references):
        if isinstance(refs, (str, dict)) or not isinstance(refs, Sequence):
            raise TypeError(f"references[{i}] must be a list of {{'id', 'cq', 'label'}} dicts")
        if not refs:
            raise ValueError(
                f"references[{i}] has no reference questions, so nothing can be matched "
                "(cqs_gen version 1.0.0's test split has none; load 2.0.0, whose test split has them)"
            )
        rows = []
        for j, ref in enumerate(refs):
            where = f"references[{i}][{j}]"
            if not isinstance(ref, dict) or not isinstance(ref.get("cq"), str):
                raise TypeError(f"{where} must be a dict with a string 'cq', got {ref!r}")
            label = _label_name(ref.get("label"), label_names, f"{where}.label")
            rows.append({"id": str(ref.get("id", j)), "cq": ref["cq"], "label": label})
        checked.append(rows)
    return checked


def _check_predictions(predictions) -> list[list[str] | None]:
    """Per intervention the question strings, or None for the whole-field ``"Missing CQs"``."""
    checked = []
    for i, questions in enumerate(predictions):
        if isinstance(questions, str):
            if questions != MISSING:
                raise TypeError(
                    f"predictions[{i}] is a string; expected a list of questions or {MISSING!r}"
                )
            checked.append(None)
            continue
        if not isinstance(questions, Sequence):
            raise TypeError(f"predictions[{i}] must be a list of questions, got {questions!r}")
        if len(questions) == 0 or (len(questions) == 1 and questions[0] == MISSING):
            checked.append(None)  # no questions: scored as "Missing CQs"
            continue
        texts = []
        for j, question in enumerate(questions):
            if isinstance(question, dict):  # the submission format {"id": 0, "cq": "..."}
                question = question.get("cq")
            if not isinstance(question, str):
                raise TypeError(f"predictions[{i}][{j}] must be a str, got {question!r}")
            texts.append(question)
        checked.append(texts)
    return checked


def _sts_match(predictions, references, threshold, embedder):
    """A decision per question (best reference, cosine), every unique text encoded once.

    One row per distinct text, so memory grows with the distinct texts, not with items ×
    references (each intervention's references repeat in every item of a large run)."""
    texts = [r["cq"] for refs in references for r in refs]
    texts += [q for qs in predictions if qs is not None for q in qs]
    unique = list(dict.fromkeys(texts))
    vectors = embedder.encode(unique)
    row = {text: i for i, text in enumerate(unique)}
    out = []
    for refs, qs in zip(references, predictions, strict=True):
        if qs is None:
            out.append(None)
            continue
        r = vectors[[row[ref["cq"]] for ref in refs]]
        q = vectors[[row[question] for question in qs]]
        sims = q @ r.T  # unit vectors: cosine
        best = sims.argmax(axis=1)  # first index of the maximum, as np.argmax in the script
        values = sims[np.arange(len(qs)), best]
        out.append(
            [
                ("match" if v > threshold else NAE, int(b), float(v), None)
                for b, v in zip(best, values, strict=True)
            ]
        )
    return out


def _parse_reply(reply, n_refs: int) -> tuple:
    """Strict: a reference index alone, or exactly the "not found" phrase; else an issue
    (with the raw reply and why, for the failure report)."""
    if not isinstance(reply, str):  # llm.Failed: the request gave no reply text
        return (ISSUE, None, None, (reply.raw, reply.reason))
    text = reply.strip()
    if text == NOT_FOUND:
        return (NAE, None, None, None)
    if re.fullmatch(r"[0-9]+", text) and int(text) < n_refs:
        return ("match", int(text), None, None)
    return (ISSUE, None, None, (reply, "unparseable reply"))


def _llm_match(predictions, references, endpoint, template, keep_going=False):
    prompts, where, choices = [], [], []
    for i, (refs, qs) in enumerate(zip(references, predictions, strict=True)):
        listing = "\n".join(f"{k}: {r['cq']}" for k, r in enumerate(refs))
        for j, question in enumerate(qs or []):
            prompts.append(template.fill(references=listing, question=question))
            where.append((i, j))
            choices.append([str(k) for k in range(len(refs))] + [NOT_FOUND])
    n_refs = [len(references[i]) for i, _ in where]

    def accept(k, reply):  # only answers are cached: an unparseable reply is asked again
        return _parse_reply(reply, n_refs[k])[0] != ISSUE

    replies = endpoint.complete(prompts, choices=choices, keep_going=keep_going, accept=accept)
    out = [None if qs is None else [None] * len(qs) for qs in predictions]
    for (i, j), reply in zip(where, replies, strict=True):
        out[i][j] = _parse_reply(reply, len(references[i]))
    return out


def _callable_match(predictions, references, matcher):
    out = []
    for i, (refs, qs) in enumerate(zip(references, predictions, strict=True)):
        if qs is None:
            out.append(None)
            continue
        row = []
        for j, question in enumerate(qs):
            choice = matcher(question, [r["cq"] for r in refs])
            if choice is None:
                row.append((NAE, None, None, None))
            elif (
                isinstance(choice, bool)
                or not isinstance(choice, (int, np.integer))
                or not 0 <= choice < len(refs)
            ):
                raise ValueError(
                    f"matcher returned {choice!r} for predictions[{i}][{j}]; expected a "
                    f"reference index 0..{len(refs) - 1} or None"
                )
            else:
                row.append(("match", int(choice), None, None))
        out.append(row)
    return out


def cq_reference_match(
    predictions: Sequence,
    references: Sequence,
    *,
    matcher: str | Callable = "sts",
    model=DEFAULT_MODEL,
    threshold: float = 0.65,
    max_questions: int | None = QUESTIONS,
    label_names: Sequence[str] = LABELS,
    intervention_ids: Sequence[str] | None = None,
    revision: str | None = None,
    cache_dir=None,
    batch_size: int = 64,
    device=None,
    llm=None,
    prompt_template: str | None = None,
    on_failure: str = "error",
) -> dict:
    """Label every generated question by its matched reference; score = mean of useful/3.

    ``predictions[i]``: the questions generated for intervention i (strings or submission
    dicts with ``cq``), or ``"Missing CQs"`` / ``["Missing CQs"]`` / ``[]`` for none.
    ``references[i]``: its reference questions ``{"id", "cq", "label"}``, label a name or a
    ``cqs_gen`` ClassLabel index. ``matcher``: ``"sts"`` (embedding cosine > ``threshold``),
    ``"llm"`` (chat endpoint, see :mod:`argbench.llm`) or a callable
    ``(question, reference_questions) -> index or None``. ``on_failure``: an LLM reply that
    cannot be used raises :class:`argbench.llm.JudgmentError` (``"error"``), or
    (``"incomplete"``) the result says ``complete=False`` and the score covers only the
    interventions whose every question was judged.
    """
    if isinstance(predictions, (str, dict)) or isinstance(references, (str, dict)):
        raise TypeError("predictions and references must be lists (one item per intervention)")
    if len(predictions) != len(references):
        raise ValueError(
            f"{len(predictions)} predictions but {len(references)} references: one of each "
            "per intervention"
        )
    if intervention_ids is not None and len(intervention_ids) != len(predictions):
        raise ValueError(f"{len(intervention_ids)} intervention_ids for {len(predictions)} items")
    if not predictions:
        raise ValueError("predictions and references are empty: nothing to score")

    check_on_failure(on_failure)
    check_threshold(threshold)
    if max_questions not in (None, "all") and (
        isinstance(max_questions, bool)
        or not isinstance(max_questions, int)
        or not 1 <= max_questions <= QUESTIONS
    ):
        raise ValueError(
            f"max_questions must be 1..{QUESTIONS} (score the first N questions of each "
            f"intervention), None (refuse more than {QUESTIONS}) or 'all' (label every "
            f"question; score Useful / max({QUESTIONS}, n)), got {max_questions!r}: the score "
            f"divides by {QUESTIONS}, so more questions could give a share above 1"
        )
    label_all = max_questions == "all"
    label_names = list(label_names)
    refs = _check_references(references, label_names)
    raw = _check_predictions(predictions)
    n_long = sum(1 for qs in raw if qs is not None and len(qs) > QUESTIONS)
    n_short = sum(1 for qs in raw if qs is not None and len(qs) < QUESTIONS)
    if max_questions is None and n_long:
        first = next(i for i, qs in enumerate(raw) if qs is not None and len(qs) > QUESTIONS)
        name = f" ({intervention_ids[first]!r})" if intervention_ids is not None else ""
        raise ValueError(
            f"predictions[{first}]{name}: {len(raw[first])} questions, {n_long} intervention(s) "
            f"with more than {QUESTIONS}; the score is Useful/{QUESTIONS} (the paper's protocol: "
            f"{QUESTIONS} questions per intervention), so it could exceed 1. Pass "
            f"max_questions={QUESTIONS} to score the first {QUESTIONS} of each (the default), "
            "or give at most three"
        )
    preds = [
        qs if qs is None or max_questions is None or label_all else qs[:max_questions] for qs in raw
    ]

    if callable(matcher):
        decided = _callable_match(preds, refs, matcher)
        fields = [("matcher", callable_name(matcher))]
    elif matcher == "sts":
        embedder = (
            model
            if isinstance(model, Embedder)
            else Embedder(
                model,
                revision=revision,
                cache_dir=cache_dir,
                batch_size=batch_size,
                device=device,
            )
        )
        decided = _sts_match(preds, refs, threshold, embedder)
        fields = [
            ("matcher", "sts"),
            ("model", embedder.signature),
            ("thr", threshold_field(threshold)),
        ]
    elif matcher == "llm":
        template = PromptTemplate(
            DEFAULT_PROMPT if prompt_template is None else prompt_template,
            ("references", "question"),
        )
        endpoint = endpoint_from(llm)
        decided = _llm_match(preds, refs, endpoint, template, keep_going=on_failure == "incomplete")
        fields = [("matcher", "llm"), *endpoint.signature_fields(template.text)]
    else:
        raise ValueError(f"matcher must be 'sts', 'llm' or a callable, got {matcher!r}")

    labels, matched_ids, similarities, scores, failed = [], [], [], [], []
    n_duplicates = n_empty = 0
    for i, (rs, qs, row) in enumerate(zip(refs, preds, decided, strict=True)):
        if row is None:  # "Missing CQs": three NAE placeholders, 0 points (the public script)
            labels.append([NAE] * QUESTIONS)
            matched_ids.append([None] * QUESTIONS)
            similarities.append([None] * QUESTIONS)
            scores.append(0.0)
            continue
        n_duplicates += len(qs) - len(set(qs))
        n_empty += sum(1 for q in qs if not q.strip())
        lab, ids, sims = [], [], []
        for j, (status, index, similarity, reply) in enumerate(row):
            if status == ISSUE:
                raw, why = reply
                failed.append({"intervention": i, "question": j, "reply": raw, "error": why})
            lab.append(rs[index]["label"] if status == "match" else status)
            ids.append(None if index is None else rs[index]["id"])
            sims.append(similarity)
        labels.append(lab)
        matched_ids.append(ids)
        similarities.append(sims)
        # an intervention that lost a judgment has no score (only with on_failure="incomplete")
        # "all": a share of Useful over max(3, n) questions, never above 1
        denominator = max(QUESTIONS, len(lab)) if label_all else QUESTIONS
        scores.append(None if ISSUE in lab else lab.count("Useful") / denominator)

    # max_q:N = the first N questions of each intervention scored; refuse = more than 3 refused
    fields.append(
        ("max_q", "refuse" if max_questions is None else "all" if label_all else int(max_questions))
    )
    if label_names != LABELS:
        fields.append(("labels", label_names))
    counts = Counter(label for lab in labels for label in lab)
    n_questions = sum(counts.values())
    judged = n_questions - counts[ISSUE]
    n_judgments = sum(len(qs) for qs in preds if qs is not None)
    scored = [s for s in scores if s is not None]
    result = {
        "score": float(np.mean(scored)) if scored else float("nan"),
        "nae_rate": counts[NAE] / judged if judged else float("nan"),
        "useful_rate": counts["Useful"] / judged if judged else float("nan"),
        **settle_judgments(failed, n_judgments, on_failure),
        "label_counts": {name: counts[name] for name in [*label_names, NAE, ISSUE]},
        "n_interventions": len(scores),
        "n_scored": len(scored),
        "n_questions": n_questions,
        "n_missing_cqs": sum(1 for qs in preds if qs is None),
        "n_short": n_short,
        "n_long": n_long,
        "n_duplicates": n_duplicates,
        "n_empty": n_empty,
        "signature": Signature("cq_reference_match", fields).render(),
        "intervention_scores": scores,
        "per_item": {"score": scores},
        "labels": labels,
        "matched_ids": matched_ids,
        "similarities": similarities,
    }
    if intervention_ids is not None:
        result["intervention_ids"] = [str(x) for x in intervention_ids]
    return result


def _load_json(source, what: str) -> dict:
    if isinstance(source, dict):
        return source
    path = Path(source)
    try:
        data = parse_json(path.read_text(encoding="utf-8-sig"), f"{what} {path}")
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{what} {path}: not a UTF-8 JSON file ({error})") from None
    if not isinstance(data, dict):
        raise ValueError(f"{what} {path}: expected a JSON object keyed by intervention_id")
    return data


def read_submission(submission, references, *, unknown="error", missing="ignore") -> dict:
    """Align a CQs-Gen submission with reference interventions; returns compute() kwargs.

    ``submission``: path or dict in the shared-task format (``{id: {"cqs": [{"id", "cq"}] or
    "Missing CQs"}}``). ``references``: path or dict in the ``validation.json`` format, or
    rows with ``intervention_id`` and ``references`` (the ``cqs_gen`` interventions config).
    ``unknown``: an intervention of the submission without references → ``"error"`` (the
    shared-task script crashes) or ``"skip"`` (the Benchmarking script skips it).
    ``missing``: a reference intervention absent from the submission → ``"ignore"`` (both
    scripts), ``"error"``, or ``"missing_cqs"`` (scored as ``"Missing CQs"``: 0 points).
    """
    if unknown not in ("error", "skip") or missing not in ("ignore", "error", "missing_cqs"):
        raise ValueError(f"unknown={unknown!r} / missing={missing!r} not understood")
    new = _load_json(submission, "submission")
    if isinstance(references, (str, Path, dict)):
        ref_map = {
            key: [
                {"id": str(c.get("id", k)), "cq": c["cq"], "label": c["label"]}
                for k, c in enumerate(value["cqs"])
            ]
            for key, value in _load_json(references, "references").items()
        }
    else:
        ref_map = {row["intervention_id"]: row["references"] for row in references}
    predictions, refs, ids = [], [], []
    for index, (key, value) in enumerate(new.items()):
        if not isinstance(value, dict) or "cqs" not in value:
            raise ValueError(f"submission[{index}] ({key!r}): missing field 'cqs'")
        if key not in ref_map:
            if unknown == "skip":
                continue
            raise KeyError(
                f"submission[{index}]: intervention {key!r} has no references; pass "
                "unknown='skip' to leave it out, as the Benchmarking script does"
            )
        cqs = value["cqs"]
        if cqs == MISSING:
            predictions.append([MISSING])
        elif isinstance(cqs, list) and all(isinstance(c, dict) and "cq" in c for c in cqs):
            predictions.append([c["cq"] for c in cqs])
        else:
            raise ValueError(
                f"submission[{index}] ({key!r}).cqs: expected a list of {{'id', 'cq'}} or "
                f"{MISSING!r}, got {cqs!r:.80}"
            )
        refs.append(ref_map[key])
        ids.append(key)
    absent = [key for key in ref_map if key not in new]
    if absent and missing == "error":
        raise KeyError(f"{len(absent)} reference interventions have no prediction: {absent[:5]}")
    if missing == "missing_cqs":
        for key in absent:
            predictions.append([MISSING])
            refs.append(ref_map[key])
            ids.append(key)
    return {"predictions": predictions, "references": refs, "intervention_ids": ids}
