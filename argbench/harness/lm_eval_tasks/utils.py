"""lm-evaluation-harness glue for argbench's tasks: every function forwards to
argbench.harness.tasks (documents, prompts, parsers, scorers), which calls argbench.scoring.

Each document's metric value is its prediction record; the aggregations score all records of
the run at once (corpus level: the STS encoding happens once over the unique texts)."""

from __future__ import annotations

from argbench.harness import checks, tasks


def _dataset(name):
    import datasets

    # lm-eval builds the datasets before the first request: what scoring needs is checked here
    return {"test": datasets.Dataset.from_list(checks.harness_documents(name))}


def _record(name, doc, results):
    if tasks.task(name).dataset == "claimdiff":
        output = [loglikelihood for loglikelihood, _ in results]  # the choices: [" no", " yes"]
    else:
        output = results[0]
    return tasks.prediction(name, doc, output)


# --- CQs-Gen


def cqs_gen_dataset(**_):
    return _dataset("cqs_gen")


def cqs_gen_prompt(doc):
    return tasks.prompt("cqs_gen", doc)


def cqs_gen_results(doc, results):
    record = _record("cqs_gen", doc, results)
    return dict.fromkeys(("cq_score", "nae_rate", "useful_rate"), record)


def cq_score(records):
    return tasks.figure("cqs_gen", records, "cq_reference_match", "score")


def nae_rate(records):
    return tasks.figure("cqs_gen", records, "cq_reference_match", "nae_rate")


def useful_rate(records):
    return tasks.figure("cqs_gen", records, "cq_reference_match", "useful_rate")


# --- ClaimDiff S and W


def claimdiff_s_dataset(**_):
    return _dataset("claimdiff_s")


def claimdiff_w_dataset(**_):
    return _dataset("claimdiff_w")


def claimdiff_s_prompt(doc):
    return tasks.prompt("claimdiff_s", doc)


def claimdiff_w_prompt(doc):
    return tasks.prompt("claimdiff_w", doc)


def claimdiff_choices(doc):
    return list(tasks.CHOICES)


def claimdiff_target(doc):
    return int(doc["label"])


_RELATION = ("auroc", "f1", "precision", "recall")


def claimdiff_s_results(doc, results):
    return dict.fromkeys(_RELATION, _record("claimdiff_s", doc, results))


def claimdiff_w_results(doc, results):
    return dict.fromkeys(_RELATION, _record("claimdiff_w", doc, results))


def _relation(name, key):
    return lambda records: tasks.figure(name, records, "claim_relation", key)


s_auroc, s_f1, s_precision, s_recall = (_relation("claimdiff_s", k) for k in _RELATION)
w_auroc, w_f1, w_precision, w_recall = (_relation("claimdiff_w", k) for k in _RELATION)


# --- CAM comparative answers


def cam_answers_dataset(**_):
    return _dataset("cam_answers")


def cam_answers_prompt(doc):
    return tasks.prompt("cam_answers", doc)


_CAM = ("ar_precision", "ar_recall", "ar_f1", "overlap_jaccard")


def cam_answers_results(doc, results):
    return dict.fromkeys(_CAM, _record("cam_answers", doc, results))


def _cam(metric, key):
    return lambda records: tasks.figure("cam_answers", records, metric, key)


ar_precision = _cam("argument_relevance", "precision")
ar_recall = _cam("argument_relevance", "recall")
ar_f1 = _cam("argument_relevance", "f1")
overlap_jaccard = _cam("argument_overlap", "jaccard_text")
