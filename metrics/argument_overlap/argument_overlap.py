"""CAM Table 3 overlap of answers with their arguments: Jaccard (text, sentence), Levenshtein."""

import evaluate

from argbench.loaders.cam_relevance import CITATION as _CITATION
from argbench.metrics._inputs import CheckedInputs
from argbench.scoring import features
from argbench.scoring.argument_overlap import INPUTS, argument_overlap

_DESCRIPTION = """\
How much a comparative answer copies its numbered arguments, as the CAM authors' notebook
measures it on whitespace tokens: jaccard_text (all arguments, joined with their "N. "
prefixes, vs the answer; mean over answers), jaccard_sent (per cited excerpt, the best
Jaccard with any argument) and levenshtein (per excerpt, the smallest token edit distance to
any argument), both means over all excerpts.
"""

_KWARGS_DESCRIPTION = """\
Args:
    predictions (list of str): the answers.
    references (list of list of str): per answer, its arguments without the "N. " prefix
        (cam_answers' `arguments` column).
    excerpts (str): "notebook" (default; the authors' regex) or "argbench" (argbench.citations).
    model: a sentence-transformers name, folder or model: adds `sbert` (the notebook used
        "sentence-transformers/all-mpnet-base-v2"). Default None: no sbert.
    embedding_options (dict): cache_dir, batch_size, device, ... for argbench.embedding.
    sentence_similarity: instead of a model, a callable (excerpts, numbered arguments) -> one
        row of similarities per excerpt, called once per answer: adds `sbert`.
Returns:
    jaccard_text, jaccard_sent, levenshtein, n_answers, n_without_arguments, n_excerpts,
    and sbert (mean over excerpts of the best cosine to a "N. "-prefixed argument) with model;
    signature; per_item (jaccard_text per answer).
Examples:
    >>> import argbench  # evaluate.load of this module's installed folder, from anywhere
    >>> metric = argbench.load_metric("argument_overlap")
    >>> r = metric.compute(predictions=["Speed: Cats are smarter than dogs [1]."],
    ...                    references=[["Cats are smarter than dogs.", "Dogs are loyal."]])
    >>> round(r["jaccard_sent"], 3), r["levenshtein"]
    (0.571, 2.0)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ArgumentOverlap(CheckedInputs, evaluate.Metric):
    INPUTS = INPUTS  # checked by CheckedInputs before Features encode

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=features(INPUTS),
            reference_urls=["https://github.com/uhh-lt/cam-arg-relevance"],
        )

    def _compute(
        self,
        predictions,
        references,
        excerpts="notebook",
        sentence_similarity=None,
        model=None,
        embedding_options=None,
    ):
        return argument_overlap(
            predictions,
            references,
            excerpts,
            sentence_similarity=sentence_similarity,
            model=model,
            embedding_options=embedding_options,
        )
