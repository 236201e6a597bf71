"""argument_answer_coherence: callable, NLI (a tiny random local model) and LLM (loopback) judges."""

from __future__ import annotations

import pytest

import argbench
from argbench.llm import ChatEndpoint
from argbench.scoring.argument_answer_coherence import SYSTEM_PROMPT, argument_answer_coherence

from .openai_stub import StubServer, user_prompt

ARGS = ["Cats are smarter than dogs.", "Dogs are more loyal than cats."]
ANSWER = "Intelligence: cats are clever [1]. Loyalty: dogs win [2]. Also [8, generated]."


def first_word_judge(argument, excerpt):
    return argument.split()[0].lower() in excerpt.lower()


def test_pairs_decisions_and_both_means():
    answers = [ANSWER, "Cats are smarter [1, 2].", "Nothing cited here."]
    result = argument_answer_coherence(answers, [ARGS, ARGS, ARGS], judge=first_word_judge)
    assert [[(p["argument"], p["coherent"]) for p in ps] for ps in result["pairs"]] == [
        [(1, 1), (2, 1)],
        [(1, 1), (2, 0)],
        [],
    ]
    assert result["pairs"][0][0]["excerpt"] == "Intelligence: cats are clever"
    assert result["n_pairs"] == 4 and result["aac"] == pytest.approx(3 / 4)
    assert result["aac_by_answer"] == pytest.approx((1.0 + 0.5) / 2)
    assert result["n_answers"] == 3 and result["n_answers_scored"] == 2
    assert result["n_out_of_range"] == 1  # [8] with two arguments


def test_notebook_excerpts_read_as_the_authors():
    result = argument_answer_coherence([ANSWER], [ARGS], judge=lambda a, e: 1, excerpts="notebook")
    # the notebook regex starts at a capital letter and drops [8, generated] entirely
    assert [p["excerpt"] for p in result["pairs"][0]] == [
        "Intelligence: cats are clever ",
        "Loyalty: dogs win ",
    ]
    assert result["n_out_of_range"] == 0


def test_unresolvable_citations_empty_excerpts_and_no_arguments():
    result = argument_answer_coherence(
        ["Cats rule [5].", "[1]\nCats are smart [1].", "Cats [1]."],
        [ARGS, ARGS, []],
        judge=lambda a, e: 1,
    )
    assert result["n_out_of_range"] == 2 and result["n_empty_excerpts"] == 1
    assert result["n_without_arguments"] == 1
    # answer 0 cites only a missing argument: 0 (as the notebook); answer 2 is not scored
    assert result["n_answers_scored"] == 2 and result["aac_by_answer"] == pytest.approx(0.5)
    assert result["aac"] == 1.0 and result["n_pairs"] == 1


def test_bad_inputs_and_bad_judges():
    with pytest.raises(ValueError, match="2 predictions but 1 references"):
        argument_answer_coherence(["a", "b"], [ARGS], judge=first_word_judge)
    with pytest.raises(TypeError, match=r"references\[0\]\[1\] must be a str"):
        argument_answer_coherence(["a [1]"], [["x", 3]], judge=first_word_judge)
    with pytest.raises(TypeError, match=r"predictions\[0\] must be a str"):
        argument_answer_coherence([None], [ARGS], judge=first_word_judge)
    with pytest.raises(ValueError, match="judge returned 2"):
        argument_answer_coherence(["Cats [1]."], [ARGS], judge=lambda a, e: 2)
    with pytest.raises(ValueError, match="judge must be"):
        argument_answer_coherence(["Cats [1]."], [ARGS], judge="gpt")
    with pytest.raises(ValueError, match="needs model="):
        argument_answer_coherence(["Cats [1]."], [ARGS], judge="nli")


def test_evaluate_module_with_cam_answers_columns():
    metric = argbench.load_metric("argument_answer_coherence")
    metric.add_batch(predictions=[ANSWER], references=[ARGS])
    metric.add_batch(predictions=["Dogs are loyal [2]."], references=[ARGS])
    result = metric.compute(judge=first_word_judge)
    assert result["n_pairs"] == 3 and result["aac"] == 1.0


# ---- NLI judge: a tiny randomly initialised BERT whose classifier always picks index 2 ----


def _tiny_nli(folder, id2label):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    words = "cats dogs are smarter than more loyal clever win intelligence loyalty".split()
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", ":", *words]
    folder.mkdir(parents=True)
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n")
    tokenizer = transformers.BertTokenizerFast(str(folder / "vocab.txt"))
    config = transformers.BertConfig(
        vocab_size=len(vocab),
        hidden_size=8,
        num_hidden_layers=1,
        num_attention_heads=1,
        intermediate_size=16,
        max_position_embeddings=64,
        num_labels=len(id2label),
        id2label=id2label,
        label2id={v: k for k, v in id2label.items()},
    )
    torch.manual_seed(0)
    model = transformers.BertForSequenceClassification(config)
    with torch.no_grad():
        model.classifier.weight.zero_()
        model.classifier.bias.copy_(torch.tensor([0.0, 0.0, 50.0][: len(id2label)]))
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def test_nli_label_order_comes_from_the_model_config(tmp_path):
    entail_last = _tiny_nli(tmp_path / "a", {0: "contradiction", 1: "neutral", 2: "entailment"})
    entail_first = _tiny_nli(tmp_path / "b", {0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"})
    answers, refs = [ANSWER], [ARGS]
    yes = argument_answer_coherence(answers, refs, judge="nli", model=entail_last)
    no = argument_answer_coherence(answers, refs, judge="nli", model=entail_first)
    assert [p["coherent"] for p in yes["pairs"][0]] == [1, 1] and yes["aac"] == 1.0
    assert [p["coherent"] for p in no["pairs"][0]] == [0, 0] and no["aac"] == 0.0
    custom = argument_answer_coherence(
        answers, refs, judge="nli", model=entail_first, entailment_label="contradiction"
    )
    assert custom["aac"] == 1.0
    unnamed = _tiny_nli(tmp_path / "c", {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})
    with pytest.raises(ValueError, match=r"cannot find label 'entailment'.*LABEL_0"):
        argument_answer_coherence(answers, refs, judge="nli", model=unnamed)


def test_nli_judges_every_unique_pair_of_the_whole_input_in_one_call(tmp_path):
    from argbench.embedding import load_cross_encoder

    encoder = load_cross_encoder(
        _tiny_nli(tmp_path / "a", {0: "contradiction", 1: "neutral", 2: "entailment"})
    )

    class Counting:
        config = encoder.config

        def __init__(self):
            self.calls = []

        def predict(self, pairs, **options):
            self.calls.append(list(pairs))
            return encoder.predict(pairs, **options)

    counting = Counting()
    answers = [ANSWER, ANSWER, "Cats are smarter [1, 2]."]  # the first two share both pairs
    result = argument_answer_coherence(answers, [ARGS] * 3, judge="nli", model=counting)
    assert result["n_pairs"] == 6
    assert len(counting.calls) == 1 and len(counting.calls[0]) == 4


def test_nli_offline_unknown_model_is_a_clear_error(monkeypatch, tmp_path):
    from argbench.embedding import ModelUnavailableError

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    with pytest.raises(ModelUnavailableError, match=r"cross-encoder model 'no-such/nli'.*local"):
        argument_answer_coherence(["Cats [1]."], [ARGS], judge="nli", model="no-such/nli")


# ---- LLM judge ----


def test_llm_judge_prompt_system_role_and_strict_parsing():
    # "Answer: 1" would parse (the prompt ends with "Answer:"); a self-contradicting one not
    replies = {
        "cats are clever": "Answer: 1",
        "dogs win": " 0\n",
        "Cats rule": "No, the answer is 1.",
    }

    def responder(request, number):
        prompt = user_prompt(request)
        excerpt = prompt.rsplit("Second: ", 1)[1].split("\n", 1)[0]
        return 200, replies[excerpt.split(": ")[-1]], 0, None

    with StubServer(responder) as server:
        llm = ChatEndpoint("stub", base_url=server.base_url, api_key="x")
        result = argument_answer_coherence(
            [ANSWER, "Cats rule [1]."], [ARGS, ARGS], judge="llm", llm=llm, on_failure="incomplete"
        )
        sent = [r["messages"] for r in server.requests]
    assert len(sent) == 3 and all(
        m[0] == {"role": "system", "content": SYSTEM_PROMPT} for m in sent
    )
    prompts = sorted(m[1]["content"] for m in sent)
    assert "First: Cats are smarter than dogs.\nSecond: Cats rule\nAnswer:" in prompts[0]
    assert all("cats are smarter than dogs" in p for p in prompts)  # the worked examples
    assert [p["coherent"] for p in result["pairs"][0]] == [1, 0]
    assert result["pairs"][1][0]["coherent"] is None
    assert result["n_failed"] == 1 and result["failed"][0]["reply"] == "No, the answer is 1."
    assert result["aac"] == 0.5 and result["n_pairs"] == 2
    assert result["n_answers_scored"] == 1  # the answer with a failed judgment is left out
    with pytest.raises(ValueError, match=r"must contain \{excerpt\}"):
        argument_answer_coherence([ANSWER], [ARGS], judge="llm", prompt_template="{argument}")


# ---- the real answers ----


@pytest.mark.mirror
def test_real_pair_counts_equal_the_notebook_calls(real_corpora):
    """The notebook makes one judge call per (excerpt, existing cited id): 1411 / 2283 / 486."""
    expected = {"silver_subset": (1411, 143), "silver": (2283, 258), "gold": (486, 75)}
    for config, (pairs, answers) in expected.items():
        ds = real_corpora.load("cam_answers", config, split="train")
        result = argument_answer_coherence(
            ds["answer"], ds["arguments"], judge=lambda a, e: 1, excerpts="notebook"
        )
        assert (result["n_pairs"], result["n_answers_scored"]) == (pairs, answers), config
