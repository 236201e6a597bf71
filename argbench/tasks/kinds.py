"""How a harness task turns documents into prompts and a model's output into a prediction.

A task declaration names its ``kind``; the kind is the small piece of code a declaration
cannot hold (lm-evaluation-harness keeps it in a task's ``utils.py``). There are three:

- ``questions``: the model writes questions, one per line; the prediction is their list;
- ``answer``: the model writes an answer that cites numbered arguments; the prediction is
  the text as written;
- ``relation``: the model scores the task's two ``choices`` (no / yes) by log-likelihood;
  the prediction is P(yes), and the run also holds dev documents (drawn by issue from the
  declared ``dev`` split) on which the decision threshold is chosen.

Everything here reads the task, never a corpus name.
"""

from __future__ import annotations

import math
import re
import warnings

__all__ = [
    "KINDS",
    "Kind",
    "clean_text",
    "parse_answer",
    "parse_questions",
    "positive_probability",
]

FALLBACK_THRESHOLD = 0.5  # only when a run's dev documents hold no positive (a tiny --limit)

# ---------------------------------------------------------------- parsers

_MARKER = re.compile(
    r"^\s*(?:(?:[-*•·–—]|\(?\d{1,3}[.):]|\(?[a-zA-Z][.)]|(?:Q|Question)\s*\d*\s*[:.)-])\s*)+"
)
_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text) -> str:
    """Model output as valid text: ``None`` is empty; unpaired surrogates (undecodable bytes
    some servers pass through) become U+FFFD, so one bad byte cannot fail the whole run."""
    if text is None:
        return ""
    if isinstance(text, bytes):
        return text.decode("utf-8", "replace")
    return _SURROGATE.sub("\ufffd", str(text))


def _without_prompt(text, prompt_text: str | None) -> str:
    text = clean_text(text)
    if prompt_text and text.lstrip().startswith(prompt_text.strip()):
        text = text.lstrip()[len(prompt_text.strip()) :]
    return text


def parse_questions(text, prompt_text: str | None = None) -> list[str]:
    """The questions of one generation: one per non-blank line, list markers (``1.``, ``2)``,
    ``-``, ``*``, ``•``, ``Q1:``) removed; an echoed prompt is dropped first. All questions
    are kept (the metric scores the first three: ``max_questions=3``); ``[]`` when none is
    left, which the metric scores as "Missing CQs" (0 points, three NAE), never dropped."""
    questions = []
    for line in _without_prompt(text, prompt_text).splitlines():
        question = _MARKER.sub("", line).strip()
        if question:
            questions.append(question)
    return questions


def parse_answer(text, prompt_text: str | None = None) -> str:
    """An answer as written (cleaned text, an echoed prompt dropped); citations are read by
    the metrics (argbench.citations)."""
    return _without_prompt(text, prompt_text).strip()


def positive_probability(loglikelihoods) -> float:
    """P(positive) from the log-likelihoods of the two answers ``[no, yes]``, normalised."""
    no, yes = (float(x) for x in loglikelihoods)
    top = max(no, yes)
    if not math.isfinite(top):
        raise ValueError(f"log-likelihoods must be finite numbers, got {loglikelihoods!r}")
    return math.exp(yes - top) / (math.exp(yes - top) + math.exp(no - top))


# ---------------------------------------------------------------- kinds


class Kind:
    """What a harness does with one kind of task (see the module docstring)."""

    choice = False  # the model scores the task's choices instead of generating
    needs_choices = False
    needs_dev = False  # the task declares where its dev documents come from (``dev``)

    def documents(self, task, rows: list[dict], load_rows) -> list[dict]:
        """The harness documents of the task's split rows; ``load_rows(split)`` reads another
        split of the same corpus and config."""
        return rows

    def prompt_fields(self, doc: dict) -> dict:
        raise NotImplementedError

    def prompt(self, task, doc: dict) -> str:
        return task.prompt.format(**task.prompt_fields, **self.prompt_fields(doc))

    def prediction(self, task, doc: dict, output) -> dict:
        """The prediction fields of one document's output."""
        raise NotImplementedError

    def target(self, doc: dict) -> int:
        """The index of a choice task's right choice (lm-eval's ``doc_to_target``)."""
        raise NotImplementedError(f"{type(self).__name__} tasks have no choices")

    def scored_records(self, task, records: list[dict], documents) -> tuple[list[dict], dict]:
        """(the records the metrics score, extra compute() options) of a run."""
        return records, {}


class Questions(Kind):
    def prompt_fields(self, doc):
        return {"intervention": doc["intervention"]}

    def prediction(self, task, doc, output):
        return {task.prediction: parse_questions(output, self.prompt(task, doc))}


class Answer(Kind):
    def prompt_fields(self, doc):
        arguments = "\n".join(f"{n}. {a}" for n, a in enumerate(doc["arguments"], 1))
        aspect = f" with respect to {doc['aspect']}" if doc.get("aspect") else ""
        return {
            "object_a": doc["object_a"],
            "object_b": doc["object_b"],
            "aspect": aspect,
            "arguments": arguments,
        }

    def prediction(self, task, doc, output):
        return {task.prediction: parse_answer(output, self.prompt(task, doc))}


class Relation(Kind):
    choice = needs_choices = needs_dev = True
    label_field = "label"  # 1: the relation holds (the second choice)

    def documents(self, task, rows, load_rows):
        """The test documents and the dev documents (``part``), interleaved so that any prefix
        (``--limit``) holds both in proportion: the threshold is chosen on the dev part."""
        # the loader brings in datasets: only when a relation task's documents are made
        from argbench.loaders.claimdiff import issue_split

        dev_split = task.dev
        _, dev = issue_split(
            load_rows(dev_split["split"]), dev_split["fraction"], dev_split["seed"]
        )
        test = [{**r, "part": "test"} for r in rows]
        return _interleave(test, [{**r, "part": "dev"} for r in dev.to_list()])

    def prompt_fields(self, doc):
        return {"claim_a": doc["claim_a"], "claim_b": doc["claim_b"]}

    def prediction(self, task, doc, output):
        return {task.prediction: positive_probability(output), "part": doc["part"]}

    def target(self, doc):
        return int(doc[self.label_field])

    def scored_records(self, task, records, documents):
        """The test records, and the dev records' scores with their labels (by id) to choose
        the threshold on."""
        test = [r for r in records if r["part"] == "test"]
        dev = [r for r in records if r["part"] == "dev"]
        if not test:  # nothing to score: no dev label is needed (nor the documents read)
            return test, {}
        labels = {d[task.id_field]: d[self.label_field] for d in documents() if d["part"] == "dev"}
        dev_labels = [labels[r[task.id_field]] for r in dev]
        if not any(dev_labels):  # a small --limit: no dev positive to choose the threshold on
            warnings.warn(
                f"{task.name}: the {len(dev)} dev pairs run hold no positive example, so no "
                f"threshold can be chosen on them; F1/P/R use the fixed threshold "
                f"{FALLBACK_THRESHOLD} (the signature says thr_from:given). Run more items (a "
                "larger --limit).",
                stacklevel=2,
            )
            return test, {"threshold": FALLBACK_THRESHOLD}
        scores = [r[task.prediction] for r in dev]
        return test, {"dev_predictions": scores, "dev_references": dev_labels}


def _interleave(a: list, b: list) -> list:
    keyed = [((i + 0.5) / len(a), 0, x) for i, x in enumerate(a)]
    keyed += [((i + 0.5) / len(b), 1, x) for i, x in enumerate(b)]
    return [x for *_, x in sorted(keyed, key=lambda k: (k[0], k[1]))]


KINDS: dict[str, Kind] = {"questions": Questions(), "answer": Answer(), "relation": Relation()}
