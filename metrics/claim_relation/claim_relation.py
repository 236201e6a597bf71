"""ClaimDiff relation classification: AUROC, and F1 / precision / recall at a threshold."""

import evaluate

from argbench.loaders.claimdiff import CITATION as _CITATION
from argbench.metrics._inputs import CheckedInputs
from argbench.scoring import features
from argbench.scoring.claim_relation import INPUTS, claim_relation

_DESCRIPTION = """\
Scores a classifier of one ClaimDiff relation (does claim A strengthen -- or weaken -- claim
B?), label 1 being the positive class, as the paper's Tables 2 and 4: AUROC from the scores
(the rank statistic; ties count one half, as scikit-learn's roc_auc_score), and F1, precision
and recall of the positive class at a threshold (score >= threshold is positive). The threshold
is given, or chosen to maximise F1 on development data, as the paper chose its thresholds.
The precision-recall curve (the paper's Fig. 2) comes as data, the points of scikit-learn's
precision_recall_curve. Hard 0/1 decisions (zero-shot generation) give F1 / precision /
recall, and AUROC is undefined (NaN), as in Table 2.
"""

_KWARGS_DESCRIPTION = """\
Args:
    predictions (list of float): a score per pair, higher = more likely positive; with
        hard_labels=True the 0/1 decisions.
    references (list of int): gold labels, 0 or 1 (the `label` column of claimdiff S or W).
    threshold (float, optional): score >= threshold is a positive decision.
    dev_predictions, dev_references (lists, optional): development scores and labels; the
        threshold is then the one maximising F1 on them (e.g. loaders.claimdiff.issue_split).
    hard_labels (bool): predictions are decisions, not scores. Default False.
    curve (bool): also return the precision-recall curve points. Default True.
Returns:
    auroc (NaN for hard labels or one-class references), f1, precision, recall, threshold
    (None for hard labels), dev_f1 (when chosen on dev), n_examples, n_positive,
    n_predicted_positive, pr_curve ({precision, recall, thresholds}, for scores); signature.
Examples:
    >>> import argbench  # evaluate.load of this module's installed folder, from anywhere
    >>> metric = argbench.load_metric("claim_relation")
    >>> r = metric.compute(predictions=[0.9, 0.8, 0.4, 0.3, 0.2], references=[1, 0, 1, 0, 0],
    ...                    threshold=0.35)
    >>> round(r["auroc"], 4), round(r["f1"], 4), round(r["precision"], 4), r["recall"]
    (0.8333, 0.8, 0.6667, 1.0)
    >>> r = metric.compute(predictions=[0.9, 0.8, 0.4, 0.3, 0.2], references=[1, 0, 1, 0, 0],
    ...                    dev_predictions=[0.7, 0.6, 0.1], dev_references=[1, 1, 0])
    >>> r["threshold"], r["dev_f1"], r["f1"]
    (0.6, 1.0, 0.5)
    >>> r = metric.compute(predictions=[1, 0, 1, 0, 0], references=[1, 0, 0, 0, 1],
    ...                    hard_labels=True)
    >>> r["auroc"], r["f1"], r["precision"], r["recall"]
    (nan, 0.5, 0.5, 0.5)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ClaimRelation(CheckedInputs, evaluate.Metric):
    INPUTS = INPUTS  # checked by CheckedInputs before Features encode

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=features(INPUTS),
            reference_urls=[
                "https://github.com/kaistAI/ClaimDiff",
                "https://scikit-learn.org/stable/api/sklearn.metrics.html",
            ],
        )

    def _compute(
        self,
        predictions,
        references,
        threshold=None,
        dev_predictions=None,
        dev_references=None,
        hard_labels=False,
        curve=True,
    ):
        return claim_relation(
            predictions,
            references,
            threshold=threshold,
            dev_predictions=dev_predictions,
            dev_references=dev_references,
            hard_labels=hard_labels,
            curve=curve,
        )
