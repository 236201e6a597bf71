"""Judge cards as files: a card is a results document (metric ``judge_card``, signed, digested,
read back through :func:`argbench.results.read_results`) and an HTML page.

The figures come from :mod:`argbench.scoring.judge_card` (the computation the reproduction
report's κ and §6.1 rows call too). A card names its judge (``result["judge"]``: the
matcher's signature fields that can change a label: matcher, model, threshold, LLM, prompt,
temperature, structured mode); a leaderboard column whose signature carries the same values
is ranked by that judge, and shows the card beside it (:func:`card_for`).
"""

from __future__ import annotations

import functools
import importlib
import time
from html import escape
from pathlib import Path

from argbench.constants import JUDGE_CARD_TASKS
from argbench.embedding import Embedder
from argbench.io import atomic_write
from argbench.results import build_document, load_split, read_results, write_results
from argbench.results.document import content_digest, plain
from argbench.scoring import judge_card as compute
from argbench.scoring import label_judge
from argbench.scoring.annotator_agreement import majority
from argbench.scoring.cq_reference_match import threshold_field
from argbench.scoring.cq_submissions import N_SUBMISSIONS, VectorTable
from argbench.signature import Signature

METRIC = "judge_card"
# signature fields that say how a metric was run, not which judge labelled
NOT_JUDGE = ("max_q", "refs", "labels")
SAMPLE_ALL = "all"
UNSCORED = "unscored"  # a relevance judge's label for a reply that is no label
# the CQs-Gen card's sample options, which another card refuses rather than ignores
SAMPLE_OPTIONS = ("interventions", "submissions")


def judge_fields(signature: str) -> dict[str, str]:
    """The judge's identity in a metric signature: its fields but the protocol's."""
    parsed = Signature.parse(signature)
    return {k: v for k, v in parsed.fields.items() if k not in NOT_JUDGE}


def sample_rows(rows: list[dict], interventions: int | None, submissions: int | None = None):
    """The first ``interventions`` rows in file order (None: all), and in them the questions
    of the first ``submissions`` submissions (None: all): the card's stated sample."""
    if interventions is not None:
        if interventions < 1 or interventions > len(rows):
            raise ValueError(f"--interventions must be 1..{len(rows)}, got {interventions}")
        rows = rows[:interventions]
    if submissions is not None:
        if submissions < 3:
            raise ValueError(f"submissions must be 3 or more (a ranking), got {submissions}")
        rows = [
            {**row, "references": [r for r in row["references"] if r["submission"] < submissions]}
            for row in rows
        ]
    return rows


def cqs_gen_card(split=None, *, sources=None, cache_dir=None, **options) -> dict:
    """:func:`card_document` on ``split`` (default: ``load_split("cqs_gen", "extended",
    "test")`` from ``sources``)."""
    if split is None:
        split = load_split("cqs_gen", "extended", "test", sources=sources, cache_dir=cache_dir)
    names = split.data.features["references"].feature["label"].names
    return card_document(split.data.to_list(), names, split, **options)


def card_document(
    rows: list[dict],
    names,
    split,
    *,
    model=None,
    threshold: float = 0.65,
    llm=None,
    matcher=None,
    interventions: int | None = None,
    submissions: int | None = None,
    resamples: int = 1_000,
    seed: int = 0,
    consistency: bool | None = None,
    name: str | None = None,
    command: str | None = None,
    log=print,
    items: int | None = None,
) -> dict:
    """The judge card document of one judge on CQs-Gen's labelled shared-task questions.

    ``rows``: the extended test's rows (``names``: its label names; ``split``: the split or
    its identity, for the document). The judge: the STS matcher with ``model`` (an Embedder
    or a model name) at ``threshold``, the LLM endpoint ``llm`` (its unusable replies
    unscored), or a callable ``matcher`` (``cq_reference_match``'s). ``interventions``: the
    first N interventions only (a stated sample). ``consistency``: ask the LLM again and with
    the references reordered (default: for an LLM)."""
    if items is not None:
        raise ValueError(
            "the cqs_gen card has no --items (its sample: --interventions, --submissions)"
        )
    total = len(rows)
    rows = sample_rows(list(rows), interventions, submissions)
    if llm is not None:
        judge = {"matcher": "llm", "llm": llm, "on_failure": "incomplete"}
    elif matcher is not None:
        judge = {"matcher": matcher}
    else:
        judge = {"matcher": "sts", "model": model}
    question_options, thresholds = judge, (threshold,)
    sts = judge["matcher"] == "sts"
    encoder, encoded = None, None
    start = time.perf_counter()
    if sts:
        # one vector table for both levels: every text (test references, submitted
        # questions) is encoded once, not once per level
        encoder = model if isinstance(model, Embedder) else Embedder(model)
        encoded = encoder.n_encoded
        model = VectorTable(encoder, [r["cq"] for row in rows for r in row["references"]])
        judge["model"] = model
    encoding = time.perf_counter() - start
    log(f"judge card: question level on {len(rows)} interventions")
    questions = compute.question_level(
        rows,
        thresholds=thresholds,
        label_names=names,
        resamples=resamples,
        seed=seed,
        **question_options,
    )
    key = threshold if sts else None
    agreement = questions["by_threshold"][key]
    log("judge card: system level (§6.1 protocol)")
    match = {k: v for k, v in judge.items() if k != "model"}
    if sts:
        match = {}
    systems = compute.system_level(
        rows,
        names,
        model=model,
        threshold=threshold,
        resamples=resamples,
        seed=seed,
        match=match,
        expected=submissions or N_SUBMISSIONS,
    )
    signature = Signature.parse(questions["signature"])
    if sts:
        signature = signature.replace(thr=threshold_field(threshold))
    fields = judge_fields(signature.render())
    stability = None
    if consistency if consistency is not None else llm is not None:
        log("judge card: the same requests again, and the references reordered")
        stability = compute.llm_consistency(rows, label_names=names, seed=seed, **judge)
    seconds = time.perf_counter() - start
    judgments = agreement["n"] + agreement["n_unscored"] + systems["n_judgments"]
    timed = encoding + questions["seconds"] + systems["seconds"]
    sample = (
        ", ".join(
            [f"first {_count(interventions, 'intervention')}"] * (interventions is not None)
            + [f"first {_count(submissions, 'submission')}"] * (submissions is not None)
        )
        or SAMPLE_ALL
    )
    card_signature = Signature(
        METRIC,
        [
            ("judge", signature.name + "|" + "|".join(f"{k}:{v}" for k, v in fields.items())),
            ("data", "cqs_gen/extended/test"),
            ("sample", sample),
            ("boot", f"interventions:{resamples}:{seed}"),
        ],
    ).render()
    result = {
        "signature": card_signature,
        "task": "cqs_gen",
        "unit": "question",
        "judge": {"metric": signature.name, "fields": fields, "signature": signature.render()},
        "name": name or _judge_name(fields),
        "sample": {
            "interventions": len(rows),
            "of": total,
            "which": sample,
            "submissions": systems["correlation"]["n"],
            "questions": agreement["n"] + agreement["n_unscored"],
        },
        "item_level": {
            "columns_note": " (NAE: the judge found no matching reference)",
            **{
                k: agreement[k]
                for k in (
                    "kappa",
                    "kappa_low",
                    "kappa_high",
                    "accuracy",
                    "nae_rate",
                    "unscored_rate",
                    "n",
                    "n_unscored",
                    "confusion",
                )
            },
        },
        "system_level": {
            "correlation": systems["correlation"],
            "intervals": systems["intervals"],
            "systems": systems["systems"],
            "n_judgments": systems["n_judgments"],
            "n_unscored": systems["n_unscored"],
            "signature": systems["signature"],
        },
        "consistency": stability,
        "time": {
            "seconds": seconds,
            "judgments": judgments,
            "seconds_per_1000_judgments": 1000 * timed / judgments if judgments else None,
            "machine": _machine(),
            # texts the embedding model encoded for this card (fewer: vectors from a cache)
            "texts_encoded": None if encoder is None else encoder.n_encoded - encoded,
        },
        "bootstrap": {
            "unit": "intervention",
            "resamples": resamples,
            "seed": seed,
            "confidence": 0.95,
            "interval": "percentile",
        },
        "labels": questions["labels"][key],
        "human_labels": questions["human"],
    }
    return build_document(
        METRIC,
        result,
        split,
        questions["question_ids"],
        system=result["name"],
        command=command,
    )


def relevance_items(rows: list[dict]) -> tuple[list[str], list[list[dict]], int]:
    """CAM's expert sheets (``cam_relevance`` config ``expert``) as the relevance card's items:
    per object pair (the bootstrap's unit, first-seen order) its sentences, each with the
    experts' label (the majority of the sheets that labelled it, the higher on a tie: the
    paper's rule) and an id; sentences are one item per object pair and whitespace-normalised,
    case-folded text (the reproduction's key). Also how many sheet rows carry no label (left
    out, counted)."""
    pairs: dict = {}
    unlabelled = 0
    for i, row in enumerate(rows):
        for field in ("object_a", "object_b", "argument"):
            if not isinstance(row.get(field), str) or not row[field].strip():
                raise ValueError(f"cam_relevance expert rows[{i}]: {field!r} is not a text")
        if row.get("label") is None:
            unlabelled += 1
            continue
        key = frozenset((row["object_a"].lower(), row["object_b"].lower()))
        text = " ".join(row["argument"].split()).lower()
        sentences = pairs.setdefault(key, {})
        sentences.setdefault(
            text, {**{k: row[k] for k in ("object_a", "object_b", "argument")}, "labels": []}
        )
        sentences[text]["labels"].append(int(row["label"]))
    names, items = [], []
    for sentences in pairs.values():
        first = next(iter(sentences.values()))
        name = f"{first['object_a']} vs {first['object_b']}"
        names.append(name)
        items.append(
            [
                {**item, "id": f"{name}#{k}", "human": str(majority(item.pop("labels")))}
                for k, item in enumerate(sentences.values())
            ]
        )
    return names, items, unlabelled


def spread_sample(groups: list[list[dict]], n: int | None) -> list[list[dict]]:
    """The first ``n`` items taken round-robin over the groups in order (the first item of
    every group, then the second, ...), so a small sample still spans many groups; None: all."""
    if n is None:
        return groups
    total = sum(len(g) for g in groups)
    if n < 1 or n > total:
        raise ValueError(f"--items must be 1..{total}, got {n}")
    order = sorted(
        ((k, g) for g, group in enumerate(groups) for k in range(len(group))),
    )[:n]
    keep = {(g, k) for k, g in order}
    kept = [
        [item for k, item in enumerate(group) if (g, k) in keep] for g, group in enumerate(groups)
    ]
    return [group for group in kept if group]


def relevance_card(split=None, *, sources=None, cache_dir=None, **options) -> dict:
    """:func:`relevance_card_document` on ``split`` (default: ``load_split("cam_relevance",
    "expert", "train")`` from ``sources``)."""
    if split is None:
        split = load_split("cam_relevance", "expert", "train", sources=sources, cache_dir=cache_dir)
    return relevance_card_document(split.data.to_list(), split, **options)


def relevance_card_document(
    rows: list[dict],
    split,
    *,
    items: int | None = None,
    **options,
) -> dict:
    """The judge card of an LLM labelling CAM argument relevance 0-3 (the paper's §3.4, its
    Figure 8 prompt: :data:`argbench.scoring.label_judge.RELEVANCE`) against the experts'
    labels of the sentences of the expert sheets (:func:`relevance_items`): agreement,
    Cohen's κ (the four labels as classes) with a bootstrap interval over object pairs, the
    confusion matrix, the unscored share (a reply that is no label), consistency (the same
    requests again; the two objects named in the other order) and the time per 1,000
    judgments. ``items``: a stated sample (:func:`spread_sample`); ``options``:
    :func:`label_card_document`'s."""
    names, groups, unlabelled = relevance_items(rows)
    return label_card_document(
        names,
        groups,
        split,
        prompt=label_judge.RELEVANCE,
        task="cam_relevance",
        unit="sentence",
        group_unit="object pair",
        data="cam_relevance/expert/train",
        items=items,
        swap=lambda x: {**x, "object_a": x["object_b"], "object_b": x["object_a"]},
        reorder="with the two objects named in the other order",
        counts={"sheet_rows_without_label": unlabelled},
        **options,
    )


def pairwise_items(
    pair_rows: list[dict], score_rows: list[dict], dimension: str, dimension_names
) -> tuple[list[str], list[list[dict]]]:
    """Webis-ArgQuality-20's pairwise judgments of one quality ``dimension`` as the pairwise
    card's items: per topic (the bootstrap's unit, in topic order) its pairs, each with both
    texts (the ``scores`` config's premises), the arguments' keys and the people's outcome
    (A, B or tie). A pair whose argument has no text is an error naming it."""
    texts = {
        (r["topic_id"], r["discussion_id"], r["argument_id"]): r["premise"] for r in score_rows
    }
    outcome = {0: "A", 1: "B", 2: "tie"}  # the order of webis_argquality20's `winner`
    wanted = list(dimension_names).index(dimension)
    topics: dict = {}
    for i, r in enumerate(pair_rows):
        if r["dimension"] != wanted:
            continue
        t = r["topic_id"]
        a = (t, r["discussion_id_a"], r["argument_id_a"])
        b = (t, r["discussion_id_b"], r["argument_id_b"])
        for side, key in (("a", a), ("b", b)):
            if not isinstance(texts.get(key), str) or not texts[key].strip():
                raise ValueError(f"webis pairwise rows[{i}]: argument {side} {key} has no text")
        topics.setdefault(t, []).append(
            {
                "id": f"topic{t}/{a[1]}.{a[2]}-{b[1]}.{b[2]}",
                "text_a": texts[a],
                "text_b": texts[b],
                "pair": (a, b),
                "human": outcome[r["winner"]],
            }
        )
    names = [f"topic {t}" for t in sorted(topics)]
    return names, [topics[t] for t in sorted(topics)]


_BACK = {"A": "B", "B": "A", "tie": "tie", None: None}  # an answer with the texts swapped


def webis_pairwise_card(split=None, *, dimension: str, sources=None, cache_dir=None, **options):
    """:func:`pairwise_card_document` on Webis-ArgQuality-20 (``pairwise`` and ``scores``
    configs, from ``sources``) for one quality ``dimension``."""
    where = {"sources": sources, "cache_dir": cache_dir}
    if split is None:
        split = load_split("webis_argquality20", "pairwise", "train", **where)
    scores = load_split("webis_argquality20", "scores", "train", **where)
    names = split.data.features["dimension"].names
    return pairwise_card_document(
        split.data.to_list(), scores.data.to_list(), names, split, dimension=dimension, **options
    )


def pairwise_card_document(
    pair_rows, score_rows, dimension_names, split, *, dimension: str, items=None, **options
) -> dict:
    """The judge card of an LLM judging which of two arguments is better on a Webis quality
    ``dimension`` (the crowd's question, :func:`argbench.scoring.label_judge.pairwise_prompt`)
    against the people's pairwise judgments: agreement, κ (A, B, tie) with a bootstrap
    interval over topics, confusion matrix, unscored share, consistency (asked again; the two
    texts in the other order, the answer read back), time; and the correlation of the
    Bradley–Terry merits fitted from its judgments with those fitted from the people's on the
    same pairs (:func:`argbench.scoring.judge_card.bradley_terry_level`)."""
    names, groups = pairwise_items(pair_rows, score_rows, dimension, dimension_names)
    return label_card_document(
        names,
        groups,
        split,
        prompt=label_judge.pairwise_prompt(dimension),
        task=f"webis_{dimension}",
        unit="pair",
        group_unit="topic",
        data=f"webis_argquality20/pairwise/train/{dimension}",
        items=items,
        swap=lambda x: {**x, "text_a": x["text_b"], "text_b": x["text_a"]},
        read_back=_BACK.get,
        reorder="with the two texts in the other order",
        ranking=lambda groups, judged, resamples, seed: compute.bradley_terry_level(
            [[x["pair"] for x in g] for g in groups],
            [[{"A": "a", "B": "b", "tie": "tie"}.get(x) for x in j] for j in judged],
            [[{"A": "a", "B": "b", "tie": "tie"}[x["human"]] for x in g] for g in groups],
            dimension=dimension,
            resamples=resamples,
            seed=seed,
        ),
        ranked="arguments: the merits fitted from its judgments vs from people's",
        **options,
    )


def label_card_document(
    names: list[str],
    groups: list[list[dict]],
    split,
    *,
    prompt,
    task: str,
    unit: str,
    group_unit: str,
    data: str,
    swap,
    reorder: str,
    items: int | None = None,
    read_back=lambda x: x,
    ranking=None,
    ranked: str | None = None,
    counts: dict | None = None,
    llm=None,
    matcher=None,
    resamples: int = 1_000,
    seed: int = 0,
    consistency: bool | None = None,
    name: str | None = None,
    command: str | None = None,
    log=print,
    **ignored,
) -> dict:
    """The card of a judge that labels one item per request (``prompt``) against people's
    labels, items grouped by the bootstrap's unit (``groups[g]``: dicts holding the prompt's
    fields, ``id`` and ``human``): agreement, κ with its interval over groups, confusion
    matrix, unscored share (:func:`argbench.scoring.judge_card.item_agreement`), consistency
    (asked again; each item ``swap``-ped, the answer mapped back by ``read_back``), time per
    1,000 judgments, and, given ``ranking(groups, judged, resamples, seed)``, the correlation
    of the ranking the judge implies with the people's. ``llm``: the endpoint; ``matcher``: a
    callable ``(**fields) -> reply text``. ``ignored``: the CQs-Gen card's options
    (threshold, ...); its sample options are refused, not ignored."""
    unused = sorted(k for k, v in ignored.items() if v is not None and k in SAMPLE_OPTIONS)
    if unused:
        raise ValueError(f"the {task} card has no {', '.join(unused)} (its sample: --items)")
    total, all_groups = sum(len(g) for g in groups), len(names)
    groups = spread_sample(groups, items)
    flat = [item for group in groups for item in group]
    judge = {"llm": llm} if matcher is None else {"judge": matcher}
    start = time.perf_counter()
    log(f"judge card: {len(flat)} {unit}s of {len(groups)} {group_unit}s")
    asked = label_judge.ask_labels(prompt, flat, **judge)
    timed = time.perf_counter() - start
    labels = [UNSCORED if x is None else x for x in asked["labels"]]
    bounds = [0]
    for group in groups:
        bounds.append(bounds[-1] + len(group))
    cut = list(zip(bounds[:-1], bounds[1:], strict=True))
    agreement = compute.item_agreement(
        [labels[a:b] for a, b in cut],
        [[item["human"] for item in group] for group in groups],
        classes=prompt.labels,
        unscored=UNSCORED,
        resamples=resamples,
        seed=seed,
    )
    level = None
    if ranking is not None:
        log(f"judge card: the ranking of the {ranked}")
        level = ranking(groups, [asked["labels"][a:b] for a, b in cut], resamples, seed)
        level = {**level, "ranked": ranked, "level": "ranking level (Bradley–Terry"}
    stability = None
    if consistency if consistency is not None else llm is not None:
        log(f"judge card: the same requests again, and {reorder[5:]}")
        again = label_judge.ask_labels(prompt, flat, **judge)["labels"]
        other = label_judge.ask_labels(prompt, [swap(x) for x in flat], **judge)["labels"]
        repeat, n_repeat = compute.answers_changed(asked["labels"], again)
        changed, n_reorder = compute.answers_changed(asked["labels"], [read_back(x) for x in other])
        stability = {
            "repeat_changed": repeat,
            "n_repeat": n_repeat,
            "reorder_changed": changed,
            "n_reorder": n_reorder,
            "reorder": reorder,
        }
    seconds = time.perf_counter() - start
    judge_signature = Signature.parse(asked["signature"])
    fields = judge_fields(judge_signature.render())
    which = (
        SAMPLE_ALL
        if items is None
        else f"first {_count(items, unit)} round-robin over the {group_unit}s"
    )
    card_signature = Signature(
        METRIC,
        [
            ("judge", judge_signature.render()),
            ("data", data),
            ("sample", which),
            ("boot", f"{group_unit.replace(' ', '_')}s:{resamples}:{seed}"),
        ],
    ).render()
    result = {
        "signature": card_signature,
        "task": task,
        "unit": unit,
        "judge": {
            "metric": judge_signature.name,
            "fields": fields,
            "signature": judge_signature.render(),
        },
        "name": name or _judge_name(fields),
        "sample": {
            "interventions": len(groups),
            "of": all_groups,
            "which": which,
            "questions": len(flat),
            "items_of": total,
            **(counts or {}),
        },
        "item_level": {
            "columns_note": " (unscored replies are left out)",
            **{k: v for k, v in agreement.items() if k != "n_groups"},
        },
        "system_level": level,
        "consistency": stability,
        "time": {
            "seconds": seconds,
            "judgments": len(flat),
            "seconds_per_1000_judgments": 1000 * timed / len(flat),
            "machine": _machine(),
        },
        "bootstrap": {
            "unit": group_unit,
            "resamples": resamples,
            "seed": seed,
            "confidence": 0.95,
            "interval": "percentile",
        },
        "labels": labels,
        "human_labels": [item["human"] for item in flat],
        "replies": asked["replies"],
    }
    return build_document(
        METRIC, result, split, [x["id"] for x in flat], system=result["name"], command=command
    )


def card_builder(task: str):
    """The function that builds the card of ``task`` (declared in
    :data:`argbench.constants.JUDGE_CARD_TASKS`, with the options it declares)."""
    declared = JUDGE_CARD_TASKS[task]
    module, _, function = declared["build"].partition(":")
    return functools.partial(
        getattr(importlib.import_module(module), function), **declared.get("options", {})
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _judge_name(fields: dict) -> str:
    if "llm" in fields:
        return f"LLM {fields.get('llm')} (prompt {fields.get('prompt')})"
    if "sts" not in fields.values() and "model" not in fields:
        return str(fields.get("judge") or fields.get("matcher"))
    model = str(fields.get("model", "?")).split("@")[0]
    return f"STS {model} {fields.get('thr', '')}".strip()


def _machine() -> str:
    import os
    import platform

    return f"{platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"


def card_slug(doc: dict) -> str:
    return "card-" + doc["digest"].split(":")[1][:12] if doc.get("digest") else "card"


def write_card(doc: dict, out_dir) -> tuple[Path, Path]:
    """``<out_dir>/card-<digest>.json`` (the results file, digested) and ``.html`` (its page);
    the file is read back through :func:`read_results` before the page is made from it."""
    out_dir = Path(out_dir)
    body = plain({k: v for k, v in doc.items() if k != "digest"})
    slug = card_slug({"digest": content_digest(body)})
    path = write_results(body, out_dir / f"{slug}.json")
    page = atomic_write(out_dir / f"{slug}.html", card_page(read_card(path)))
    return path, page


def read_card(path) -> dict:
    """A card file, verified as every results file is, and checked to be a card."""
    doc = read_results(path)
    if doc["metric"] != METRIC or "judge" not in doc["result"]:
        raise ValueError(f"{path}: a results file of {doc['metric']!r}, not a judge card")
    return doc


def card_for(cards: list[dict], metric: str, signature: str) -> dict | None:
    """The card whose judge ranked a column of ``metric`` under ``signature`` (every judge
    field equal), the whole-data card before a sample's; None: no card for that judge."""
    try:
        fields = Signature.parse(signature).fields
    except ValueError:
        return None
    found = [
        c
        for c in cards
        if c["result"]["judge"]["metric"] == metric
        and all(fields.get(k) == v for k, v in c["result"]["judge"]["fields"].items())
    ]
    found.sort(key=lambda c: (c["result"]["sample"]["which"] != SAMPLE_ALL, c.get("created") or ""))
    return found[0] if found else None


def _f(x, digits=3) -> str:
    """A figure as the card prints it: undefined (None or NaN) is a dash, never a zero."""
    return "—" if x is None or x != x else f"{x:.{digits}f}"


def _ci(value, low, high, digits=3) -> str:
    return f"{_f(value, digits)} [{_f(low, digits)}, {_f(high, digits)}]"


def summary(doc: dict) -> dict:
    """What a board shows of a card: κ and the ranking correlations (if the card has a
    ranking level), with intervals, and whether κ's interval reaches 0 (no better than
    chance)."""
    q, s = doc["result"]["item_level"], doc["result"].get("system_level")
    undefined = q["kappa"] is None or q["kappa"] != q["kappa"]
    chance = not undefined and (q["kappa_low"] is None or q["kappa_low"] <= 0)
    out = {
        "kappa": _ci(q["kappa"], q["kappa_low"], q["kappa_high"]),
        "chance": chance,
        "undefined": undefined,
        "sample": doc["result"]["sample"]["which"],
        "slug": card_slug(doc),
        "ranking": s is not None,
    }
    for name, key in (
        ("spearman", "spearman_ranks"),
        ("pearson", "pearson_scores"),
        ("kendall", "kendall_tau"),
    ):
        out[name] = _ci(s["correlation"][key], *s["intervals"][key].values()) if s else _f(None)
    return out


def card_text(doc: dict) -> str:
    """The card in a few lines (the command's stdout, the note)."""
    r = doc["result"]
    q, s, t = r["item_level"], r.get("system_level"), r["time"]
    unit, group = r.get("unit", "question"), r["bootstrap"]["unit"]
    sm = summary(doc)
    sample = r["sample"]
    lines = [
        f"judge card: {r['name']}",
        f"  judge: {r['judge']['signature']}",
        f"  sample: {sample['interventions']} of {sample['of']} {group}s "
        f"({sample['which']}), {sample['questions']:,} labelled {unit}s",
        f"  {unit} level: kappa {sm['kappa']} (95% bootstrap over {group}s), agreement "
        f"{_f(q['accuracy'])}"
        + (f", NAE {_f(q['nae_rate'])}" if "nae_rate" in q else "")
        + f", unscored {_f(q['unscored_rate'])} ({q['n_unscored']:,} of "
        f"{q['n'] + q['n_unscored']:,})",
    ]
    if s is not None:
        lines.append(
            f"  {s.get('level', 'system level (§6.1')}, {s['correlation']['n']} "
            f"{s.get('ranked', 'submissions')}): Pearson {sm['pearson']}, "
            f"Spearman {sm['spearman']}, Kendall {sm['kendall']}"
        )
    if r.get("consistency"):
        c = r["consistency"]
        lines.append(
            f"  consistency: {_f(c['repeat_changed'])} of {c['n_repeat']:,} answers change when "
            f"asked again, {_f(c['reorder_changed'])} of {c['n_reorder']:,} "
            f"{c.get('reorder', 'with the references reordered')} (answers usable both times)"
        )
    per = t["seconds_per_1000_judgments"]
    encoded = t.get("texts_encoded")
    lines.append(
        f"  time: {t['seconds']:.1f} s in all; {_f(per, 1)} s per 1,000 judgments ({t['machine']}"
        + ("" if encoded is None else f"; {encoded:,} texts encoded")
        + ")"
    )
    if sm["chance"]:
        lines.append("  warning: kappa's interval reaches 0: no better than chance agreement")
    if sm["undefined"]:
        lines.append("  warning: kappa undefined: no usable judgment to compare with people")
    return "\n".join(lines)


STYLE = (
    "body{font-family:system-ui,sans-serif;margin:1.5em;max-width:1100px;color:#222}"
    "table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #ccc;padding:3px 6px}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}code{font-size:11px;"
    "word-break:break-all}pre{white-space:pre-wrap}.small{font-size:12px;color:#555}"
)


def card_page(doc: dict) -> str:
    """The card as one self-contained page (a data file's text is always escaped)."""
    r = doc["result"]
    q, s = r["item_level"], r.get("system_level")
    labels = q["confusion"]["labels"]
    matrix = "".join(
        f"<tr><th>{escape(labels[i])}</th>"
        + "".join(f"<td class='n'>{v:,}</td>" for v in row)
        + "</tr>"
        for i, row in enumerate(q["confusion"]["matrix"])
    )
    systems = "".join(
        f"<tr><td>{escape(x['system'])}</td><td class='n'>{_fmt(x['score'])}</td>"
        f"<td class='n'>{_fmt(x['human'])}</td></tr>"
        for x in (s or {}).get("systems", [])
    )
    body = [
        f"<h1>Judge card: {escape(r['name'])}</h1>",
        f"<p>judge <code>{escape(r['judge']['signature'])}</code><br>card "
        f"<code>{escape(doc['signature'])}</code><br>digest <code>{escape(doc['digest'])}</code>"
        f"<br>dataset <code>{escape(str(doc['dataset'].get('name')))}/"
        f"{escape(str(doc['dataset'].get('config')))} {escape(str(doc['dataset'].get('content_hash')))}"
        "</code></p>",
        f"<pre>{escape(card_text(doc))}</pre>",
        "<h2>Confusion matrix</h2><p class='small'>rows: people's label; columns: the "
        f"judge's{escape(q.get('columns_note', ''))}</p><table><thead><tr><th></th>"
        + "".join(f"<th>{escape(x)}</th>" for x in labels)
        + f"</tr></thead><tbody>{matrix}</tbody></table>",
    ]
    if systems:
        body.append(
            f"<h2>The {escape(s.get('ranked', 'submissions'))}, judge and people</h2><table>"
            "<thead><tr><th>system</th><th>judge score</th><th>human score</th></tr></thead>"
            f"<tbody>{systems}</tbody></table>"
        )
    title = escape(f"Judge card: {r['name']}")
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>{title}</title><style>{STYLE}</style></head><body>{''.join(body)}</body></html>\n"
    )


def _fmt(value) -> str:
    return "—" if value is None else f"{value:.4f}"
