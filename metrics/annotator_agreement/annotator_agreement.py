"""Inter-annotator agreement: Krippendorff's α (nominal / ordinal / interval), Fleiss' κ and
mean pairwise Cohen's κ over items rated by several raters, with missing ratings."""

import evaluate

from argbench.metrics._inputs import CheckedInputs
from argbench.scoring import features
from argbench.scoring.annotator_agreement import INPUTS, annotator_agreement

_CITATION = """\
@book{krippendorff-2011-content,
  title = {Computing Krippendorff's Alpha-Reliability},
  author = {Krippendorff, Klaus},
  year = {2011},
  publisher = {University of Pennsylvania}
}
@article{fleiss-1971-measuring,
  title = {Measuring nominal scale agreement among many raters},
  author = {Fleiss, Joseph L.},
  journal = {Psychological Bulletin},
  volume = {76}, number = {5}, pages = {378--382}, year = {1971}
}
@article{cohen-1960-coefficient,
  title = {A Coefficient of Agreement for Nominal Scales},
  author = {Cohen, Jacob},
  journal = {Educational and Psychological Measurement},
  volume = {20}, number = {1}, pages = {37--46}, year = {1960}
}
"""

_DESCRIPTION = """\
Agreement between raters who labelled the same items. Each example is one item: the list of
its ratings, one position per rater (the same order for every item), None for a rater who did
not rate it. Krippendorff's α at the nominal, ordinal and interval levels comes from the
`krippendorff` package; Fleiss' κ uses every item with at least two ratings; Cohen's κ is
computed for every pair of raters on the items both rated and averaged. With the CAM expert
control items this reproduces the release's α = 0.8889 (ordinal) and κ = 0.8121.
"""

_KWARGS_DESCRIPTION = """\
Args:
    ratings (list of list of float/int/None): one row per item, one column per rater; None
        (or NaN) for a missing rating. ClassLabel ints are fine (they are ordered categories).
    categories (list of numbers, optional): the possible values, in order. Default: the values
        observed. It fixes the ordinal distances and Fleiss' category set.
Returns:
    krippendorff_alpha_nominal, krippendorff_alpha_ordinal, krippendorff_alpha_interval,
    fleiss_kappa, cohen_kappa_mean (floats); raters, items, items_with_two_or_more_ratings,
    ratings, rater_pairs, rater_pairs_undefined (counts); signature.
Examples:
    >>> import argbench  # evaluate.load of this module's installed folder, from anywhere
    >>> metric = argbench.load_metric("annotator_agreement")
    >>> r = metric.compute(ratings=[[0, 0, 1], [2, 2, 2], [1, None, 1], [3, 3, 2]])
    >>> round(r["krippendorff_alpha_ordinal"], 4), round(r["fleiss_kappa"], 4)
    (0.8641, 0.5417)
    >>> round(r["cohen_kappa_mean"], 4)  # mean of 1, 1/3 and 1/7
    0.4921
    >>> r["ratings"], r["rater_pairs"]
    (11, 3)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class AnnotatorAgreement(CheckedInputs, evaluate.Measurement):
    INPUTS = INPUTS  # checked by CheckedInputs before Features encode

    def _info(self):
        return evaluate.MeasurementInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=features(INPUTS),
            reference_urls=["https://pypi.org/project/krippendorff/"],
        )

    def _compute(self, ratings, categories=None):
        return annotator_agreement(ratings, categories)
