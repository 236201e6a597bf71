"""CAM argument–answer coherence (AAC): do cited excerpts follow from the arguments they cite?"""

import evaluate

from argbench.loaders.cam_relevance import CITATION as _CITATION
from argbench.metrics._inputs import CheckedInputs
from argbench.scoring import features
from argbench.scoring.argument_answer_coherence import INPUTS, argument_answer_coherence

_DESCRIPTION = """\
For every citation of a numbered argument in a comparative answer ("... [3]"), a judge decides
whether the cited excerpt follows from the argument without contradicting it (1) or not (0).
aac is the mean over all such pairs; aac_by_answer the mean of per-answer means (the CAM
authors' aggregation). Judges: an NLI cross-encoder (judge="nli"; label order read from the
model config), an LLM on an OpenAI-compatible endpoint (judge="llm"), or any callable.
"""

_KWARGS_DESCRIPTION = """\
Args:
    predictions (list of str): the answers.
    references (list of list of str): per answer, its arguments without the "N. " prefix
        (cam_answers' `arguments` column); [N] cites references[i][N-1].
    judge: "llm" (default), "nli", or a callable (argument, excerpt) -> 0 or 1.
    model: for judge="nli", a CrossEncoder NLI model name, folder or loaded model.
    entailment_label (str): the id2label name counted as coherent. Default "entailment".
    llm (dict or argbench.llm.ChatEndpoint): endpoint options; default from
        $ARGBENCH_LLM_MODEL / _BASE_URL / _API_KEY.
    prompt_template (str): LLM prompt with {argument} and {excerpt}.
    excerpts (str): "argbench" (default, argbench.citations) or "notebook" (the authors' regex).
    on_failure (str): "error" (default): an LLM reply that is not 0 or 1, or a request without
        a usable reply, raises JudgmentError; "incomplete": the result says complete=False
        and the means cover only what was judged.
Returns:
    aac, aac_by_answer, complete, n_failed, failed (answer, argument, reply, error), n_pairs,
    n_answers, n_answers_scored, n_out_of_range, n_empty_excerpts,
    pairs (per answer: argument, excerpt, coherent); signature; per_item (aac_by_answer per
    answer, None if nothing was judged).
Examples:
    >>> import argbench  # evaluate.load of this module's installed folder, from anywhere
    >>> metric = argbench.load_metric("argument_answer_coherence")
    >>> def same_subject(argument, excerpt):  # a toy judge: same first word
    ...     return int(argument.split()[0].lower() == excerpt.split()[0].lower())
    >>> r = metric.compute(
    ...     predictions=["Cats are clever [1]. Dogs are loyal [1, 2]."],
    ...     references=[["Cats are smarter than dogs.", "Dogs are more loyal."]],
    ...     judge=same_subject)
    >>> r["aac"], r["n_pairs"], [p["coherent"] for p in r["pairs"][0]]
    (0.6666666666666666, 3, [1, 0, 1])
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ArgumentAnswerCoherence(CheckedInputs, evaluate.Metric):
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
        judge="llm",
        model=None,
        entailment_label="entailment",
        llm=None,
        prompt_template=None,
        excerpts="argbench",
        batch_size=32,
        device=None,
        on_failure="error",
    ):
        return argument_answer_coherence(
            predictions,
            references,
            judge=judge,
            model=model,
            entailment_label=entailment_label,
            llm=llm,
            prompt_template=prompt_template,
            excerpts=excerpts,
            batch_size=batch_size,
            device=device,
            on_failure=on_failure,
        )
