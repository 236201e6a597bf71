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


# --- CQs-Gen: validation (argbench_cqs_gen) and test (argbench_cqs_gen_test), one prompt


def cqs_gen_dataset(**_):
    return _dataset("cqs_gen")


def cqs_gen_test_dataset(**_):
    return _dataset("cqs_gen_test")


def cqs_gen_prompt(doc):
    return tasks.prompt("cqs_gen", doc)  # the same template for both splits


_CQ = ("cq_score", "nae_rate", "useful_rate")


def cqs_gen_results(doc, results):
    return dict.fromkeys(_CQ, _record("cqs_gen", doc, results))


def cqs_gen_test_results(doc, results):
    return dict.fromkeys(_CQ, _record("cqs_gen_test", doc, results))


def _cq(name, key):
    # each split's records are scored against that split's references
    return lambda records: tasks.figure(name, records, "cq_reference_match", key)


cq_score, nae_rate, useful_rate = (_cq("cqs_gen", k) for k in ("score", "nae_rate", "useful_rate"))
test_cq_score, test_nae_rate, test_useful_rate = (
    _cq("cqs_gen_test", k) for k in ("score", "nae_rate", "useful_rate")
)


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
