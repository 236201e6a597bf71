"""Bradley–Terry merits of items from pairwise judgments (Rao–Kupper ties, a dummy-item
regulariser), one fit per group, as Webis-ArgQuality-20 derives its quality scores."""

import evaluate

from argbench.metrics._inputs import CheckedInputs
from argbench.scoring import features
from argbench.scoring.bradley_terry import INPUTS, WEBIS_EXAMPLE_PARAMETERS, bradley_terry

_CITATION = """\
@inproceedings{gienapp-etal-2020-efficient,
  title = {Efficient Pairwise Annotation of Argument Quality},
  author = {Gienapp, Lukas and Stein, Benno and Hagen, Matthias and Potthast, Martin},
  booktitle = {Proceedings of the 58th Annual Meeting of the Association for Computational
    Linguistics},
  pages = {5772--5781},
  year = {2020}
}
"""

_DESCRIPTION = """\
Bradley–Terry merits from pairwise judgments: each example is one judgment (item A, item B,
who won: a, b or tie). One fit per group (a topic and quality dimension in
Webis-ArgQuality-20), with Rao–Kupper ties (threshold τ) and the authors' regulariser (each
item wins and loses once against a dummy item, weight λ), maximised by damped Newton.
Returns each group's merits and normalised scores.
"""

_KWARGS_DESCRIPTION = """\
Args:
    item_a, item_b (list of str): the two items of each judgment.
    outcome (list of 'a' / 'b' / 'tie' or 0 / 1 / 2): who won each judgment.
    group (list of str): fit each group separately (the plain function
        ``argbench.scoring.bradley_terry.bradley_terry`` also takes None: one fit).
    regularization (float): λ, default 0.3. threshold (float): τ, default 0.01.
    normalize ('zscore', 'minmax' or None): the scores within each group; default 'zscore'.
Returns:
    n_judgments, n_groups, n_items (counts); log_likelihood (natural log, summed over the
    fits); converged (bool, every fit); max_gradient; fits (per group: group, items,
    merits, scores, log_likelihood, converged); signature.
Examples:
    >>> import argbench  # evaluate.load of this module's installed folder, from anywhere
    >>> metric = argbench.load_metric("bradley_terry")
    >>> r = metric.compute(item_a=["x", "x", "y", "z"], item_b=["y", "z", "z", "x"],
    ...                    outcome=["a", "a", "tie", "b"], group=["t"] * 4)
    >>> (fit,) = r["fits"]
    >>> {item: round(score, 4) for item, score in zip(fit["items"], fit["scores"])}
    {'x': 1.4139, 'y': -0.6826, 'z': -0.7314}
    >>> r["n_judgments"], r["converged"]
    (4, True)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class BradleyTerry(CheckedInputs, evaluate.Measurement):
    INPUTS = INPUTS  # checked by CheckedInputs before Features encode

    def _info(self):
        return evaluate.MeasurementInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=features(INPUTS),
            reference_urls=[
                "https://github.com/webis-de/acl20-efficient-argument-quality-annotation"
            ],
        )

    def _compute(
        self,
        item_a,
        item_b,
        outcome,
        group=None,
        regularization=WEBIS_EXAMPLE_PARAMETERS[0],
        threshold=WEBIS_EXAMPLE_PARAMETERS[1],
        normalize="zscore",
    ):
        return bradley_terry(item_a, item_b, outcome, group, regularization, threshold, normalize)
