"""What a harness run needs before it starts, must show before its records become a result, and
adds to the signature.

Before the first generation, :func:`harness_documents` (what both harnesses' dataset hooks
call) checks that everything the task's scoring needs is there: the embedding model a metric's
``model`` option names (CQs-Gen's STS matcher: a missing model was found only when lm-eval
aggregated, after every generation) and the LLM judge of a metric with ``judge: llm`` (CAM's
AAC) when one is configured.

Then two questions about a finished run, asked by ``argbench import-harness`` (:mod:`argbench.harness.convert`)
before any record is scored:

- Do the model's outputs carry information? A run where every log-likelihood is zero (a
  server whose ``echo`` + ``logprobs`` leave out the answer tokens: llama-cpp-python's), where
  every ClaimDiff score is the same, or where every generation is empty still "scores" (AUROC
  0.5, an F1 from predicting one class), and that number says nothing about the model:
  :func:`refuse_degenerate` refuses it, saying what was constant and why it happens.
- Was it asked the task's prompt? The harness logs the prompt each document was given
  (lm-eval's ``arguments``, inspect's sample ``input``); :func:`check_prompt` refuses a run
  whose logged prompt is not the one the task declares now (a run of an older task version,
  or of an edited task file): its numbers would be labelled with the current prompt's hash and
  paired by ``compare`` with runs they are not comparable with. Such a run is refused rather
  than signed with a hash of its own prompt: argbench scores and labels only prompts it
  declares, and the hash stands for a template, which a logged instance does not give back.
- What shaped the outputs? Temperature and sampling, the maximum of generated tokens, whether
  a chat template formatted the prompt, and for ClaimDiff the exact log-likelihood method or
  inspect's first-token approximation. :func:`signature_fields` gives them as signature fields,
  so two runs that differ there never compare as the same measurement.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import urllib.error
import urllib.request

from argbench.embedding import Embedder
from argbench.harness import runs
from argbench.llm import MODEL_ENV, endpoint_from
from argbench.signature import SYSTEM_FIELDS, Signature
from argbench.tasks import task


class PromptMismatchError(ValueError):
    """The prompt a harness logged for a document is not the task's current prompt."""


def check_prompt(name: str, doc, logged, where: str) -> None:
    """``logged`` (the prompt text the harness logged for document ``doc``; a chat model's
    messages as the harness logged them, JSON included) holds the prompt task ``name``
    makes of ``doc`` now. A chat template or few-shot examples may surround it; the prompt
    itself must be there, character for character."""
    if not isinstance(doc, dict) or not isinstance(logged, str):
        raise PromptMismatchError(
            f"{where}: the harness logged no prompt (or no document) for this record: not a "
            "log argbench can check (lm-eval --log_samples, inspect eval); argbench reads the "
            "prompt each document was given before it scores a run"
        )
    try:
        expected = runs.prompt(name, doc)
    except (KeyError, TypeError, ValueError, IndexError) as error:
        raise PromptMismatchError(
            f"{where}: the logged document is not one of task {name}'s ({type(error).__name__}: "
            f"{error}); a run of another task version?"
        ) from None
    escaped = json.dumps(expected, ensure_ascii=False)[1:-1]  # inside a JSON list of messages
    ascii_escaped = json.dumps(expected)[1:-1]
    if expected in logged or escaped in logged or ascii_escaped in logged:
        return
    form, start = expected, 0  # where the prompt starts in the log (after a chat wrapper)
    for candidate in (expected, escaped, ascii_escaped):
        if logged.find(candidate[:30]) >= 0:
            form, start = candidate, logged.find(candidate[:30])
            break
    tail = logged[start:]
    cut = next(
        (k for k, (a, b) in enumerate(zip(form, tail, strict=False)) if a != b),
        min(len(form), len(tail)),
    )
    window = slice(max(0, cut - 20), cut + 40)
    raise PromptMismatchError(
        f"{where}: the run was not given task {name}'s current prompt (prompt hash "
        f"{runs.identity(name)['prompt']}): the logged prompt reads {tail[window]!r} where the "
        f"task's reads {form[window]!r}. A run of another task version is another "
        "measurement: run it again with this argbench's tasks (argbench harness-path), or "
        "import it with the argbench that wrote its task"
    )


class DegenerateRunError(RuntimeError):
    """The run finished but its outputs carry no information: no result is made from it."""


# ---------------------------------------------------------------- before the first generation


def harness_documents(name: str) -> list[dict]:
    """:func:`argbench.harness.runs.documents`, after :func:`check_needs`: the harnesses
    build their datasets before any request, so a missing model stops the run there."""
    check_needs(name)
    return runs.documents(name)


def check_needs(name: str) -> None:
    """Load what scoring ``name`` will need (a metric's embedding model; reach the LLM
    judge), or raise."""
    t = task(name)
    for metric in runs.metrics_of(name):
        options = t.options_for(metric)
        if isinstance(options.get("model"), str):
            model = options["model"]
            env = t.option_env(metric, "model")
            try:
                Embedder(model).model  # noqa: B018 - loads it (once per process) or raises
            except Exception as error:  # noqa: BLE001 - said with what to set
                raise RuntimeError(
                    f"argbench/{name}: the model {model!r} that scores the run ({metric}) "
                    f"cannot be loaded ({type(error).__name__}: {str(error)[:300]}); "
                    + (f"set ${env} to a model that loads here" if env else "install it")
                    + ". Nothing was generated"
                ) from None
        if options.get("judge") == "llm" and os.environ.get(MODEL_ENV):
            _reach_judge(name)


def _reach_judge(name: str) -> None:
    """The judge's server answers (any HTTP status: it is there); a refused connection or a
    timeout stops the run before its generations, not after them."""
    endpoint = endpoint_from(None)
    base = (endpoint.base_url or "https://api.openai.com/v1").rstrip("/")
    request = urllib.request.Request(
        f"{base}/models", headers={"Authorization": f"Bearer {endpoint.api_key}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=30):
            pass
    except urllib.error.HTTPError:
        return
    except OSError as error:
        raise RuntimeError(
            f"argbench/{name}: the judge {endpoint.model!r} at {base} does not answer "
            f"({error}); start it or unset ${MODEL_ENV}. Nothing was generated"
        ) from None


# ---------------------------------------------------------------- degenerate runs

_TIE = (
    "every {n} ClaimDiff score is {value!r} (all tied): AUROC would be 0.5 and F1 a constant "
    "prediction's, whatever the model. "
)
_ZERO = (
    "every log-likelihood the harness logged is 0 ({n} values): the server did not score the "
    "answer tokens. llama-cpp-python's server (and others) omit the continuation's "
    "log-probabilities with echo=true, so lm-eval's local-completions reads 0 for every "
    "choice. Use a route that scores the answer: lm-eval's hf (or vllm) model type, or "
    "inspect eval argbench/claimdiff_s (first-token log-probabilities, approximate); see "
    "docs/harness.md. "
)
_EMPTY = (
    "every one of the {n} generations is empty (no question, no answer text): the server "
    "returned nothing (a stop sequence at the start, a context overflow, a model that ends at "
    "once?). "
)
_ECHO = (
    "every one of the {n} generations repeats the prompt and adds nothing argbench can read "
    "(the prompt is dropped from a generation before it is parsed): the server echoes the "
    "input (a completions route with echo=true, or a chat template the model continues "
    "instead of answering?). "
)
_WHAT = "No result is made from this run; fix the route and run it again."


def refuse_degenerate(
    name: str, records: list[dict], where, loglikelihoods=None, echoes=None
) -> None:
    """Raise :class:`DegenerateRunError` when the run's outputs are all alike.

    ``loglikelihoods``: the raw values the harness logged (lm-eval's ``resps``), when it keeps
    them; all zero is named as its own cause. ``echoes``: for each generation, whether its
    raw text held the prompt (an empty record is then an echo, not an empty reply). One
    output cannot be tied with another, so a run of one item is left alone."""
    if len(records) < 2:
        return
    t = task(name)
    why = None
    if loglikelihoods and all(float(x) == 0.0 for x in loglikelihoods):
        why = _ZERO.format(n=len(loglikelihoods))
    elif t.behaviour.choice:
        scores = {r.get(t.prediction) for r in records}
        if len(scores) == 1:
            why = _TIE.format(n=len(records), value=next(iter(scores)))
    else:
        field = t.prediction
        if all(not r.get(field) for r in records):
            echoed = echoes is not None and len(echoes) == len(records) and all(echoes)
            why = (_ECHO if echoed else _EMPTY).format(n=len(records))
    if why:
        raise DegenerateRunError(f"{where}: {name}: {why}{_WHAT}")


# ---------------------------------------------------------------- what shaped the outputs

_API = ("completions", "api", "openai", "anthropic")  # lm-eval model types sending temperature


def _decode(temperature, do_sample, extra: dict, api: bool) -> str:
    """``greedy`` or ``sample(t=...,top_p=...,...)``, the same for both harnesses."""
    temperature = None if temperature is None else float(temperature)
    if api:  # lm-eval's API models send temperature (default 0) and drop do_sample
        sampling = temperature not in (None, 0.0)
    else:  # hf/vllm: do_sample decides; temperature 0 is greedy
        sampling = bool(do_sample) and temperature != 0.0
    if not sampling:
        return "greedy"
    shown = [f"t={temperature if temperature is not None else 'default'}"]
    shown += [f"{k}={extra[k]}" for k in ("top_p", "top_k", "seed") if extra.get(k) is not None]
    return f"sample({','.join(shown)})"


def lm_eval_fields(name: str, run: dict, task_config: dict) -> list[tuple[str, str]]:
    """Signature fields of an lm-eval run (its ``results_*.json`` and the task's config)."""
    config = run.get("config") or {}
    template = run.get("chat_template")
    if template is None:
        shape = "raw"  # no --apply_chat_template
    elif template == "":
        shape = "messages"  # applied by the server (API models have no local template)
    else:
        sha = run.get("chat_template_sha") or hashlib.sha256(template.encode()).hexdigest()
        shape = f"chat_template:{sha[:8]}"
    if run.get("system_instruction"):
        sha = (
            run.get("system_instruction_sha")
            or hashlib.sha256(run["system_instruction"].encode()).hexdigest()
        )
        shape += f"+system:{sha[:8]}"
    fields = [("input", shape)]
    if task(name).behaviour.choice:
        return [*fields, ("method", "loglik-exact")]
    kwargs = task_config.get("generation_kwargs") or {}
    api = any(word in str(config.get("model") or "") for word in _API)
    decode = _decode(kwargs.get("temperature"), kwargs.get("do_sample"), kwargs, api)
    return [*fields, ("decode", decode), ("max_tok", str(kwargs.get("max_gen_toks", 256)))]


def inspect_fields(name: str, model: str, model_args: dict, config: dict, top_logprobs: int):
    """Signature fields of an inspect run (its model, model args and generate config)."""
    provider = str(model).split("/")[0]
    # inspect sends chat messages; its hf provider formats them itself ("user: ..." without
    # a tokenizer template), API providers leave it to the server
    fields = [("input", "messages:hf" if provider == "hf" else "messages")]
    if task(name).behaviour.choice:
        return [*fields, ("method", f"first-token-top{top_logprobs}-approx")]
    temperature = config.get("temperature")
    if provider == "hf":  # inspect's hf provider samples unless -M do_sample=False
        sampling = (model_args or {}).get("do_sample", True) is not False
    else:
        sampling = temperature is None or temperature > 0
    decode = _decode(temperature, sampling, config, api=False)
    if sampling and temperature is None:
        decode = "sample(t=provider default)"
    return [*fields, ("decode", decode), ("max_tok", str(config.get("max_tokens", "default")))]


def with_fields(signature: str, fields: list[tuple[str, str]]) -> str:
    """``signature`` with the run's fields added before the version."""
    parsed = Signature.parse(signature)
    unknown = [key for key, _ in fields if key not in SYSTEM_FIELDS]
    if unknown:  # the board tells system fields from the measurement's by this list
        raise ValueError(f"harness fields {unknown} are not in signature.SYSTEM_FIELDS")
    clash = [key for key, _ in fields if key in parsed.fields]
    if clash:
        raise ValueError(f"harness fields {clash} already in the signature {signature}")
    return parsed.replace(**dict(fields)).render()


def finite(values, where: str) -> list[float]:
    """Log-likelihoods as floats (lm-eval logs them as strings); a non-number names its place."""
    out = []
    for value in values:
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{where}: log-likelihood {value!r} is not a number") from None
        if math.isnan(number):
            raise ValueError(f"{where}: log-likelihood is NaN")
        out.append(number)
    return out
