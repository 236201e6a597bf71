"""ClaimDiff rationale extraction: ERASER IoU-F1 and token F1 on spaCy tokens."""

import evaluate

from argbench.loaders.claimdiff import CITATION as CLAIMDIFF_CITATION
from argbench.metrics._inputs import CheckedInputs, OptionalInputs
from argbench.scoring import features
from argbench.scoring.rationale_f1 import INPUTS, rationale_f1

_CITATION = (
    CLAIMDIFF_CITATION
    + """\
@inproceedings{deyoung-etal-2020-eraser,
  title = {ERASER: A Benchmark to Evaluate Rationalized NLP Models},
  booktitle = {Proceedings of ACL 2020},
  year = {2020}
}
"""
)

_DESCRIPTION = """\
Scores predicted rationale phrases against gold ones. IoU-F1: ERASER's partial_match_score --
a predicted span is a hit when its best token IoU with a gold span of the same example is
>= iou_threshold; micro (pooled) and macro (F1 of the mean per-example P and R). Token F1:
per-example precision/recall/F1 of the covered tokens, averaged over examples that have
predicted or gold tokens (ERASER's instance_macro token_prf). Tokens are spaCy's English
tokens, computed without spaCy by default.
"""

_KWARGS_DESCRIPTION = """\
Args:
    predictions (list of list of str): predicted rationale phrases per example.
    references (list of list of str): gold rationale phrases per example.
    contexts (list of str, optional): the text the phrases come from (ClaimDiff claim_a);
        phrases then become token spans of their first occurrence. Without contexts a phrase
        is the set of its token strings. An input like predictions (add_batch takes it, and
        distributed evaluation gathers it); also accepted by compute() after add_batch.
    iou_threshold (float): default 0.5.
    tokenizer (str): "argbench" (default, spaCy-compatible, pure Python) or "spacy".
Returns:
    iou_f1, iou_precision, iou_recall (micro), iou_f1_macro, iou_precision_macro,
    iou_recall_macro, token_f1, token_precision, token_recall, n_examples, n_token_scored;
    signature; per_item (token_f1, token_precision, token_recall per example).
Examples:
    >>> import argbench  # evaluate.load of this module's installed folder, from anywhere
    >>> metric = argbench.load_metric("rationale_f1")
    >>> r = metric.compute(predictions=[["Stone as the access point"]],
    ...                    references=[["Stone as the access point to WikiLeaks"]],
    ...                    contexts=["Officials saw Stone as the access point to WikiLeaks."])
    >>> r["iou_f1"], round(r["token_f1"], 3)
    (1.0, 0.833)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class RationaleF1(OptionalInputs, CheckedInputs, evaluate.Metric):
    INPUTS = INPUTS  # checked by CheckedInputs before Features encode
    OPTIONAL_INPUTS = {"contexts": "string"}  # see argbench.metrics._inputs

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=features({**INPUTS, **self.OPTIONAL_INPUTS}),
            reference_urls=[
                "https://github.com/kaistAI/ClaimDiff",
                "https://github.com/jayded/eraserbenchmark",
            ],
        )

    def _compute(
        self, predictions, references, contexts=None, iou_threshold=0.5, tokenizer="argbench"
    ):
        contexts = self.optional("contexts", contexts)
        return rationale_f1(predictions, references, contexts, iou_threshold, tokenizer)
