"""Results files as Every Eval Ever records (``argbench export eee``).

Every Eval Ever (``every-eval-ever``, schema 0.3.0) is the cross-framework record of an
evaluation: one aggregate ``<uuid>.json`` per run (the model, the library, one entry per
figure with its metric's direction, range, judge and interval) and its per-item companion
``<uuid>_samples.jsonl``, both under ``data/<benchmark>/<developer>/<model>/`` as its
datastore lays them out and its validator (``python -m every_eval_ever validate``) checks.

What a results document holds goes across as it is: the figures the metric declares
(:mod:`argbench.scoring.declaration`: headline and harness figures, with their directions),
the signature's settings as ``metric_parameters``, an LLM judge named in the signature as
``metric_config.llm_scoring``, the bootstrap interval (``argbench evaluate --ci``) as
``score_details.uncertainty``, argbench and its version as ``eval_library`` (the harness and
its version beside them for an imported run), the split's version, Hub commit and content
hash with the dataset. The record's UUID is derived from the signature and the results
file's digest, so exporting one run twice gives the same ids and the same file names.

Only documents :func:`argbench.results.read_results` accepts are exported: the caller reads
them. A figure the document leaves undefined (None) and items whose per-item value is
undefined are not records (EEE scores are numbers); the aggregate says how many
(``details.n_undefined``) instead of dropping them unsaid.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from argbench.io import atomic_write
from argbench.scoring import declaration
from argbench.signature import Signature

__all__ = ["SCHEMA_VERSION", "Record", "record_uuid", "records"]

SCHEMA_VERSION = "0.3.0"
_UNSAFE = re.compile(r'[<>:"/\\|?*\x00-\x1f\s]+')
_HUB_NAME = re.compile(r"[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*")
_CI = re.compile(r"(?P<level>[\d.]+)% level, (?P<resamples>[\d,]+) resamples")


@dataclass
class Record:
    """One run as EEE files: ``folder`` (``data/<benchmark>/<developer>/<model>``), the
    ``aggregate`` record and its ``samples`` rows (empty: a corpus-level metric)."""

    uuid: str
    folder: str
    aggregate: dict
    samples: list[dict]
    notes: list[str]

    @property
    def aggregate_path(self) -> str:
        return f"{self.folder}/{self.uuid}.json"

    @property
    def samples_path(self) -> str:
        return f"{self.folder}/{self.uuid}_samples.jsonl"

    def write(self, out) -> list[Path]:
        """The files under ``out`` (the datastore root: ``out/data/...``); a file of the same
        run is replaced, since it is the same record."""
        out = Path(out)
        written = []
        if self.samples:
            written.append(atomic_write(out / self.samples_path, _jsonl(self.samples)))
        text = json.dumps(self.aggregate, ensure_ascii=False, allow_nan=False, indent=1) + "\n"
        written.insert(0, atomic_write(out / self.aggregate_path, text))
        return written


def _jsonl(rows: list[dict]) -> str:
    """The samples file's text (its checksum is of exactly these bytes)."""
    return "".join(
        json.dumps(row, ensure_ascii=False, allow_nan=False, sort_keys=True) + "\n" for row in rows
    )


def record_uuid(doc: dict) -> str:
    """A UUID (version 4 layout, as EEE's file names require) made from the document's
    signature and digest: the same run gives the same id every time it is exported."""
    seed = f"{doc['signature']}\0{doc['digest']}".encode()
    return str(uuid.UUID(bytes=hashlib.sha256(seed).digest()[:16], version=4))


def _component(text: str) -> str:
    """One portable path component (EEE flattens ``/`` in model names with ``_``)."""
    cleaned = _UNSAFE.sub("_", text).strip("._") or "unnamed"
    return "data_" if cleaned == "data" else cleaned


def _strings(mapping: dict) -> dict:
    """``additional_details``: EEE allows strings only; None values are left out."""
    return {
        str(k): v if isinstance(v, str) else json.dumps(v)
        for k, v in mapping.items()
        if v is not None
    }


def _model_info(doc: dict, developer: str) -> dict:
    """The system scored. A Hub-style name (``org/model``) is its id and its org the
    developer; any other name (``mine``, a harness's local model path) becomes a flat id made
    a portable path component, filed under ``developer``. The name is kept as it was; a
    harness run adds the harness's model type as the engine and its model arguments."""
    harness = doc.get("harness") or {}
    name = str(doc.get("system") or harness.get("model_name") or "unnamed")
    if _HUB_NAME.fullmatch(name):
        model_id, developer = name, name.split("/")[0]
    else:
        model_id = _component(name)
    info = {
        "name": name,
        "id": model_id,
        "developer": developer,
        "additional_details": {"deployment_type": "unknown", "model_availability": "unknown"},
    }
    if harness.get("model"):
        info["inference_engine"] = {"name": str(harness["model"])}
        info["additional_details"]["harness_model_args"] = json.dumps(
            harness.get("model_args"), sort_keys=True
        )
    return info


def _source_data(doc: dict) -> dict:
    dataset = doc["dataset"]
    details = _strings(
        {
            "config": dataset.get("config"),
            "split": dataset.get("split"),
            "version": dataset.get("version"),
            "content_hash": dataset.get("content_hash"),
            "commit": dataset.get("commit"),
            "source": dataset.get("source"),
            "n_missing": str(doc["n_missing"]),
        }
    )
    source = str(dataset.get("source") or "")
    name = f"{dataset.get('name')}/{dataset.get('config')}/{dataset.get('split')}"
    if source.startswith("hub:"):
        return {
            "dataset_name": name,
            "source_type": "hf_dataset",
            "hf_repo": source[4:],
            "hf_split": str(dataset.get("split")),
            "samples_number": doc["n_items"] + doc["n_missing"],
            "additional_details": details,
        }
    return {"dataset_name": name, "source_type": "other", "additional_details": details}


def _llm_scoring(fields: dict) -> dict | None:
    """The LLM judge a signature names (``llm:<model>@<identity>``, ``prompt:<hash>``,
    ``temp``), or None when no LLM scored the items."""
    model = fields.get("llm")
    if model is None:
        return None
    name, _, identity = model.partition("@")
    judge = {
        "model_info": {
            "name": name,
            "id": name,
            "additional_details": _strings(
                {
                    "deployment_type": "unknown",
                    "model_availability": "unknown",
                    "argbench_identity": identity or None,
                    "max_tokens": fields.get("max_tokens"),
                    "structured_output": fields.get("structured"),
                }
            ),
        }
    }
    try:
        judge["temperature"] = float(fields.get("temp", ""))
    except ValueError:  # "default": the server's own
        pass
    return {
        "judges": [judge],
        "input_prompt": (
            f"argbench prompt template, sha256 prefix {fields.get('prompt')} (the template "
            "text is the metric's, or the one the run passed: see the metric card)"
        ),
        "additional_details": {"temperature": fields.get("temp", "default")},
    }


def _uncertainty(result: dict, key: str, values: list | None) -> dict | None:
    scored = [v for v in values or [] if v is not None]
    out = {}
    if len(scored) >= 2:
        mean = math.fsum(scored) / len(scored)
        sd = math.sqrt(math.fsum((v - mean) ** 2 for v in scored) / (len(scored) - 1))
        out["standard_deviation"] = sd
        out["standard_error"] = {"value": sd / math.sqrt(len(scored)), "method": "analytic"}
        out["num_samples"] = len(scored)
    interval = (result.get("ci") or {}).get(key) or {}
    if interval.get("low") is not None and interval.get("high") is not None:
        method = str(result.get("ci_method") or "bootstrap")
        ci = {"lower": interval["low"], "upper": interval["high"], "method": method}
        found = _CI.search(method)
        if found:
            ci["confidence_level"] = float(found["level"]) / 100
            out["num_bootstrap_samples"] = int(found["resamples"].replace(",", ""))
        out["confidence_interval"] = ci
    return out or None


def _figures(metric: str) -> dict[str, bool]:
    """Result key -> higher is better, for every figure the metric declares (headline
    first); a metric that declares none has nothing EEE can record (a direction is required)."""
    spec = declaration(metric)
    out = {}
    if spec.headline is not None:
        out[spec.headline.value] = spec.headline.higher_is_better
    for figure in spec.figures.values():
        out.setdefault(figure.key, figure.higher_is_better)
    if not out:
        raise ValueError(
            f"{metric} declares no figure with a direction (no headline, no harness figures): "
            "nothing to export as an Every Eval Ever record"
        )
    return out


def records(doc: dict, *, source: str, developer: str = "unknown", retrieved=None) -> Record:
    """The EEE record of one verified results document (:func:`read_results`'s); ``source``
    names the results file in the record; ``developer``: the developer of a system whose name
    has no ``org/`` (EEE files records under it); ``retrieved``: Unix time of the export."""
    run_id = record_uuid(doc)
    signature = doc["signature"]
    fields = Signature.parse(signature).fields
    spec = declaration(doc["metric"])
    headline = spec.headline
    model = _model_info(doc, developer)
    folder = "/".join(
        [
            "data",
            _component(f"argbench_{doc['dataset'].get('name')}"),
            _component(model["developer"]),
            _component(model["id"].split("/")[-1]),
        ]
    )
    harness = doc.get("harness") or {}
    dataset = _source_data(doc)
    per_item = doc["result"].get("per_item") or {}
    results, samples, notes = [], [], []
    for key, higher in _figures(doc["metric"]).items():
        value = doc["result"].get(key)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            notes.append(f"{doc['metric']} {key!r} is undefined in {source}: not a record")
            continue
        result_id = f"{doc['metric']}.{key}"
        metric_config = {
            "metric_id": f"argbench.{result_id}",
            "metric_name": f"{doc['metric']} {key}",
            "lower_is_better": not higher,
            "metric_parameters": dict(fields),
            "additional_details": _strings(
                {
                    "signature": signature,
                    "aggregation": "mean of per-item values" if key in per_item else "corpus",
                }
            ),
        }
        if headline is not None and key == headline.value:
            metric_config |= {
                "score_type": "continuous",
                "min_score": headline.low,
                "max_score": headline.high,
            }
        judge = _llm_scoring(fields)
        if judge is not None:
            metric_config["llm_scoring"] = judge
        values = per_item.get(key)
        undefined = sum(v is None for v in values) if values is not None else 0
        score_details = {
            "score": float(value),
            "details": _strings(
                {
                    "n_items": str(doc["n_items"]),
                    "n_missing": str(doc["n_missing"]),
                    "n_undefined": str(undefined),
                    "complete": "false" if doc["result"].get("complete") is False else "true",
                }
            ),
        }
        uncertainty = _uncertainty(doc["result"], key, values)
        if uncertainty:
            score_details["uncertainty"] = uncertainty
        results.append(
            {
                "evaluation_result_id": result_id,
                "evaluation_name": result_id,
                "source_data": dataset,
                "evaluation_timestamp": doc["created"],
                "metric_config": metric_config,
                "score_details": score_details,
            }
        )
        for item, item_value in zip(doc["item_ids"], values or [], strict=values is not None):
            if item_value is None:
                continue
            samples.append(
                {
                    "schema_version": SCHEMA_VERSION,
                    "evaluation_id": run_id,
                    "model_id": model["id"],
                    "evaluation_name": result_id,
                    "evaluation_result_id": result_id,
                    "sample_id": item,
                    "interaction_type": "single_turn",
                    "input": {"raw": f"{dataset['dataset_name']}#{item}", "reference": []},
                    "output": {"raw": []},
                    "answer_attribution": [],
                    "evaluation": {
                        "score": float(item_value),
                        "is_correct": headline is not None and float(item_value) >= headline.high,
                    },
                }
            )
        if undefined:
            notes.append(f"{result_id}: {undefined:,} item(s) undefined in {source}: no sample row")
    if not results:
        raise ValueError(f"{source}: no figure of {doc['metric']} is defined: nothing to export")
    aggregate = {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": run_id,
        "evaluation_timestamp": doc["created"],
        "retrieved_timestamp": str(int(time.time() if retrieved is None else retrieved)),
        "source_metadata": {
            "source_name": f"argbench results file {Path(source).name}",
            "source_type": "evaluation_run",
            "source_organization_name": "argbench",
            "evaluator_relationship": "other",
            "additional_details": _strings(
                {"digest": doc["digest"], "command": doc.get("command"), "results_file": source}
            ),
        },
        "eval_library": {
            "name": "argbench",
            "version": str(doc["argbench_version"]),
            "additional_details": _strings(
                {
                    "results_format": doc["format"],
                    "signature": signature,
                    "harness": harness.get("name"),
                    "harness_version": harness.get("version"),
                    "harness_task": harness.get("task"),
                    "harness_run": harness.get("run"),
                    "task": doc.get("task"),
                }
            ),
        },
        "model_info": model,
        "evaluation_results": results,
    }
    record = Record(run_id, folder, aggregate, samples, notes)
    if samples:
        text = _jsonl(samples)
        aggregate["detailed_evaluation_results"] = {
            "format": "jsonl",
            "file_path": record.samples_path,
            "hash_algorithm": "sha256",
            "checksum": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            "total_rows": len(samples),
        }
    return record
