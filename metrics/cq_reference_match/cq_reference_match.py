"""CQs-Gen reference-based evaluation of generated critical questions, with NAE."""

import evaluate

from argbench.loaders.cqs_gen import CITATION as _CITATION
from argbench.metrics._inputs import CheckedInputs, OptionalInputs
from argbench.scoring import features
from argbench.scoring.cq_reference_match import DEFAULT_MODEL, INPUTS, LABELS, cq_reference_match

_DESCRIPTION = """\
Each generated critical question takes the label (Useful / Unhelpful / Invalid) of the most
similar reference question of its intervention when the similarity is above a threshold,
otherwise "not_able_to_evaluate" (NAE). An intervention scores (number of Useful questions)/3;
the score is the mean over interventions. Similarity is the cosine of sentence embeddings
(default stsb-mpnet-base-v2, threshold 0.65 as in the paper, strict >), an LLM judge on an
OpenAI-compatible endpoint (matcher="llm"), or any callable. With the same model and
threshold the labels equal the public CQs-Gen evaluation script's, question by question.
"""

_KWARGS_DESCRIPTION = """\
Args:
    predictions (list of list of str): per intervention, the generated questions (3 expected);
        ["Missing CQs"] or [] for an intervention without questions (0 points, 3 NAE).
    references (list of list of dict): per intervention, its reference questions
        {"id": str, "cq": str, "label": "Useful"|"Unhelpful"|"Invalid" or its cqs_gen
        ClassLabel index}: the `references` column of cqs_gen "interventions" as it comes.
    matcher: "sts" (default), "llm", or a callable (question, reference_questions) -> index
        of the matching reference or None.
    model: sentence-transformers name, local folder or loaded model (default
        "stsb-mpnet-base-v2"); embeddings are cached on disk (argbench.embedding).
    threshold (float): similarity must be > threshold. Default 0.65 (the paper; the public
        script's default is 0.6).
    max_questions (int 1..3 or None): score only the first N questions per intervention.
        Default 3, the paper's protocol (the score is Useful/3, so more could exceed 1);
        None refuses an intervention with more than 3 questions; "all" labels every question
        (score Useful / max(3, n)). In the signature (max_q).
    intervention_ids (list of str, optional): echoed in the output. An input like predictions
        (add_batch takes it, and distributed evaluation gathers it).
    llm (dict or argbench.llm.ChatEndpoint): endpoint options (model, base_url, api_key,
        timeout, ...); default from $ARGBENCH_LLM_MODEL / _BASE_URL / _API_KEY.
    prompt_template (str): LLM prompt with {references} and {question}.
    on_failure (str): "error" (default): an LLM reply that names no reference, or a request
        without a usable reply, raises JudgmentError; "incomplete": the result says
        complete=False and the score covers only interventions whose questions were all judged.
    cache_dir, revision, batch_size, device: passed to the embedding engine.
Returns:
    score, nae_rate, useful_rate, complete, n_failed, failed, label_counts, n_interventions,
    n_scored, n_questions, n_missing_cqs, n_short, n_long, n_duplicates, n_empty,
    intervention_scores, and per question labels, matched_ids, similarities; signature;
    per_item (score per intervention).
Examples:
    >>> import argbench  # evaluate.load of this module's installed folder, from anywhere
    >>> metric = argbench.load_metric("cq_reference_match")
    >>> refs = [[{"id": "a", "cq": "Is the source reliable?", "label": 0},
    ...          {"id": "b", "cq": "What is the weather like?", "label": 2}]]
    >>> def same_words(question, reference_questions):  # a toy matcher: exact text
    ...     return reference_questions.index(question) if question in reference_questions else None
    >>> r = metric.compute(predictions=[["Is the source reliable?", "Why?", "Who says so?"]],
    ...                    references=refs, matcher=same_words)
    >>> round(r["score"], 4), r["labels"][0], r["label_counts"]["not_able_to_evaluate"]
    (0.3333, ['Useful', 'not_able_to_evaluate', 'not_able_to_evaluate'], 2)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class CqReferenceMatch(OptionalInputs, CheckedInputs, evaluate.Metric):
    INPUTS = INPUTS  # checked by CheckedInputs before Features encode
    OPTIONAL_INPUTS = {"intervention_ids": "string"}  # see argbench.metrics._inputs

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=features({**INPUTS, **self.OPTIONAL_INPUTS}),
            reference_urls=[
                "https://github.com/hitz-zentroa/Benchmarking_CQs-Gen",
                "https://github.com/hitz-zentroa/shared-task-critical-questions-generation",
            ],
        )

    def _compute(
        self,
        predictions,
        references,
        matcher="sts",
        model=DEFAULT_MODEL,
        threshold=0.65,
        max_questions=3,
        label_names=LABELS,
        intervention_ids=None,
        revision=None,
        cache_dir=None,
        batch_size=64,
        device=None,
        llm=None,
        prompt_template=None,
        on_failure="error",
    ):
        return cq_reference_match(
            predictions,
            references,
            matcher=matcher,
            model=model,
            threshold=threshold,
            max_questions=max_questions,
            label_names=label_names,
            intervention_ids=self.optional("intervention_ids", intervention_ids),
            revision=revision,
            cache_dir=cache_dir,
            batch_size=batch_size,
            device=device,
            llm=llm,
            prompt_template=prompt_template,
            on_failure=on_failure,
        )
