"""Judge cards as files: a card is a results document (metric ``judge_card``, signed, digested,
read back through :func:`argbench.results.read_results`) and an HTML page.

The figures come from :mod:`argbench.scoring.judge_card` (the computation the reproduction
report's κ and §6.1 rows call too). A card names its judge (``result["judge"]``: the
matcher's signature fields that can change a label: matcher, model, threshold, LLM, prompt,
temperature, structured mode); a leaderboard column whose signature carries the same values
is ranked by that judge, and shows the card beside it (:func:`card_for`).
"""

from __future__ import annotations

import time
from html import escape
from pathlib import Path

from argbench.io import atomic_write
from argbench.results import build_document, load_split, read_results, write_results
from argbench.results.document import content_digest, plain
from argbench.scoring import judge_card as compute
from argbench.scoring.cq_reference_match import threshold_field
from argbench.scoring.cq_submissions import N_SUBMISSIONS
from argbench.signature import Signature

METRIC = "judge_card"
# signature fields that say how a metric was run, not which judge labelled
NOT_JUDGE = ("max_q", "refs", "labels")
SAMPLE_ALL = "all"


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
) -> dict:
    """The judge card document of one judge on CQs-Gen's labelled shared-task questions.

    ``rows``: the extended test's rows (``names``: its label names; ``split``: the split or
    its identity, for the document). The judge: the STS matcher with ``model`` (an Embedder
    or a model name) at ``threshold``, the LLM endpoint ``llm`` (its unusable replies
    unscored), or a callable ``matcher`` (``cq_reference_match``'s). ``interventions``: the
    first N interventions only (a stated sample). ``consistency``: ask the LLM again and with
    the references reordered (default: for an LLM)."""
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
    encoded = getattr(model, "n_encoded", None)
    start = time.perf_counter()
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
    timed = questions["seconds"] + systems["seconds"]
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
        "judge": {"metric": signature.name, "fields": fields, "signature": signature.render()},
        "name": name or _judge_name(fields),
        "sample": {
            "interventions": len(rows),
            "of": total,
            "which": sample,
            "submissions": systems["correlation"]["n"],
            "questions": agreement["n"] + agreement["n_unscored"],
        },
        "question_level": {
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
            "texts_encoded": None if encoded is None else model.n_encoded - encoded,
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


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _judge_name(fields: dict) -> str:
    if fields.get("matcher") == "llm":
        return f"LLM {fields.get('llm')} (prompt {fields.get('prompt')})"
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
    """What a board shows of a card: κ and the ranking correlations, with intervals, and
    whether κ's interval reaches 0 (no better than chance)."""
    q, s = doc["result"]["question_level"], doc["result"]["system_level"]
    c, iv = s["correlation"], s["intervals"]
    undefined = q["kappa"] is None or q["kappa"] != q["kappa"]
    chance = not undefined and (q["kappa_low"] is None or q["kappa_low"] <= 0)
    return {
        "kappa": _ci(q["kappa"], q["kappa_low"], q["kappa_high"]),
        "spearman": _ci(c["spearman_ranks"], *iv["spearman_ranks"].values()),
        "pearson": _ci(c["pearson_scores"], *iv["pearson_scores"].values()),
        "kendall": _ci(c["kendall_tau"], *iv["kendall_tau"].values()),
        "chance": chance,
        "undefined": undefined,
        "sample": doc["result"]["sample"]["which"],
        "slug": card_slug(doc),
    }


def card_text(doc: dict) -> str:
    """The card in a few lines (the command's stdout, the note)."""
    r = doc["result"]
    q, s, t = r["question_level"], r["system_level"], r["time"]
    sm = summary(doc)
    lines = [
        f"judge card: {r['name']}",
        f"  judge: {r['judge']['signature']}",
        f"  sample: {r['sample']['interventions']} of {r['sample']['of']} interventions "
        f"({r['sample']['which']}), {r['sample']['questions']:,} labelled questions",
        f"  question level: kappa {sm['kappa']} (95% bootstrap over interventions), agreement "
        f"{_f(q['accuracy'])}, NAE {_f(q['nae_rate'])}, unscored {_f(q['unscored_rate'])} "
        f"({q['n_unscored']:,} of {q['n'] + q['n_unscored']:,})",
        f"  system level (§6.1, {s['correlation']['n']} submissions): Pearson {sm['pearson']}, "
        f"Spearman {sm['spearman']}, Kendall {sm['kendall']}",
    ]
    if r.get("consistency"):
        c = r["consistency"]
        lines.append(
            f"  consistency: {_f(c['repeat_changed'])} of {c['n_repeat']:,} answers change when "
            f"asked again, {_f(c['reorder_changed'])} of {c['n_reorder']:,} with the references "
            "reordered (answers usable both times)"
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
    q, s = r["question_level"], r["system_level"]
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
        for x in s["systems"]
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
        "judge's (NAE: the judge found no matching reference)</p><table><thead><tr><th></th>"
        + "".join(f"<th>{escape(x)}</th>" for x in labels)
        + f"</tr></thead><tbody>{matrix}</tbody></table>",
        "<h2>The submissions, judge and people</h2><table><thead><tr><th>system</th>"
        f"<th>judge score</th><th>human score</th></tr></thead><tbody>{systems}</tbody></table>",
    ]
    title = escape(f"Judge card: {r['name']}")
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>{title}</title><style>{STYLE}</style></head><body>{''.join(body)}</body></html>\n"
    )


def _fmt(value) -> str:
    return "—" if value is None else f"{value:.4f}"
