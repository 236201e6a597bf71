"""CAM argument relevance (AR) precision / recall / F1 of cited arguments."""

import evaluate

from argbench.loaders.cam_relevance import CITATION as _CITATION
from argbench.metrics._inputs import CheckedInputs
from argbench.scoring import features
from argbench.scoring.argument_relevance import INPUTS, argument_relevance

_DESCRIPTION = """\
For a generated comparative answer that cites numbered arguments ("... [1, 3]"), precision is
the share of the distinct cited arguments that are relevant (label >= relevance_threshold),
recall the share of the relevant arguments that are cited, F1 their harmonic mean per answer;
all three are averaged over answers. Citations are read by argbench.citations. With
semantics="notebook" the citations are read, and answers skipped, exactly as the CAM authors'
notebook does.
"""

_KWARGS_DESCRIPTION = """\
Args:
    predictions (list of str): the answers.
    references (list of list of int): per answer, the relevance label of each numbered
        argument (index N-1 for citation [N]); -1 or None means unknown.
    relevance_threshold (int): a label >= this is relevant. Default 2 (as the authors).
    semantics (str): "strict" (default) or "notebook" (the authors' parser and skipping).
Returns:
    precision, recall, f1 (means over scored answers), n_answers, n_scored,
    n_without_citations, n_without_relevant, n_out_of_range, n_unknown_cited, n_unparsed,
    generated_share; signature; per_item (precision, recall, f1 per answer, None if
    not scored).
Examples:
    >>> import argbench  # evaluate.load of this module's installed folder, from anywhere
    >>> metric = argbench.load_metric("argument_relevance")
    >>> r = metric.compute(predictions=["A is faster [1, 2]. B is cheaper [generated]."],
    ...                    references=[[3, 0, 2]])
    >>> round(r["precision"], 2), round(r["recall"], 2), round(r["f1"], 2), r["generated_share"]
    (0.5, 0.5, 0.5, 0.5)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ArgumentRelevance(CheckedInputs, evaluate.Metric):
    INPUTS = INPUTS  # checked by CheckedInputs before Features encode

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=features(INPUTS),
            reference_urls=["https://github.com/uhh-lt/cam-arg-relevance"],
        )

    def _compute(self, predictions, references, relevance_threshold=2, semantics="strict"):
        return argument_relevance(predictions, references, relevance_threshold, semantics)
