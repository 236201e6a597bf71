"""CQs-Gen diversity: compression-ratio diversity and n-gram diversity of generated texts."""

import evaluate

from argbench.loaders.cqs_gen import CITATION as CQS_GEN_CITATION
from argbench.metrics._inputs import CheckedInputs
from argbench.scoring import features
from argbench.scoring.cr_diversity import INPUTS, cr_diversity

_CITATION = (
    CQS_GEN_CITATION
    + """\
@article{shaib-etal-2024-standardizing,
  title = {Standardizing the Measurement of Text Diversity: A Tool and a Comparative Analysis of Scores},
  journal = {arXiv preprint arXiv:2403.00553},
  year = {2024}
}
"""
)

_DESCRIPTION = """\
Diversity of one system's generated texts, all predictions together. compression_ratio is the
size of the texts joined with spaces divided by their compressed size (with gzip, exactly what
the diversity package 0.3.1 measures); cr_diversity is its reciprocal (the CQs-Gen paper's
CR-div, higher = more diverse); ngram_diversity sums distinct/all n-grams for n = 1..4 over
space-split tokens, as the diversity package does.
"""

_KWARGS_DESCRIPTION = """\
Args:
    predictions (list of str): the generated texts of one system.
    algorithm (str): "gzip" (default), "zstd" or "xz".
    num_n (int): largest n-gram size for ngram_diversity, default 4.
    empty (str): empty or whitespace-only texts: "exclude" (default; counted in n_empty),
        "error", or "keep" (as the diversity package: they score as diverse).
Returns:
    compression_ratio, cr_diversity, ngram_diversity (unrounded floats); n_texts, n_empty;
    signature.
Examples:
    >>> import argbench  # evaluate.load of this module's installed folder, from anywhere
    >>> metric = argbench.load_metric("cr_diversity")
    >>> r = metric.compute(predictions=["Is the claim true?", "Is the claim true?", "Who says so?"])
    >>> round(r["ngram_diversity"], 3)
    2.989
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class CrDiversity(CheckedInputs, evaluate.Measurement):
    INPUTS = INPUTS  # checked by CheckedInputs before Features encode

    def _info(self):
        return evaluate.MeasurementInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=features(INPUTS),
            reference_urls=["https://pypi.org/project/diversity/0.3.1/"],
        )

    def compute(self, *, predictions=None, references=None, data=None, **kwargs):
        """``data=``: evaluate's convention for a measurement's texts, and what
        ``evaluator("text-generation")`` passes; the same as ``predictions=``."""
        if data is not None:
            if predictions is not None:
                raise ValueError("give predictions= or data= (the same texts), not both")
            predictions = data
        return super().compute(predictions=predictions, references=references, **kwargs)

    def _compute(self, predictions, algorithm="gzip", num_n=4, empty="exclude"):
        return cr_diversity(predictions, algorithm, num_n, empty)
