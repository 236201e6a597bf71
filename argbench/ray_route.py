"""The judge and embedding stages on Ray Data (``pip install "argbench[ray]"``), for clusters.

Why Ray at all: on one machine ``argbench evaluate`` and a judge client with several
endpoints (:class:`argbench.llm.ChatEndpoint`) do the work; across machines someone must
place the work, restart what dies and carry results back. Ray Data does that, so argbench
only says what one unit of work is, and the unit is the one argbench already has:

* **judge stage** (:func:`evaluate_on_ray`): the run is cut into shards by item id
  (:mod:`argbench.results.shards`), a Ray Data pipeline runs one
  :func:`argbench.evaluate_predictions` per shard with ``map_batches`` (the same code, the
  same judge client with its identity checks and reply cache, so the judge is asked exactly
  what the plain run asks it), and the driver joins the fragments with
  :func:`argbench.results.merge_fragments`. The document is the plain run's but for
  ``created``, ``command`` and the digest (tested against llama.cpp's server).
* **embedding stage** (:func:`embed_on_ray`): texts through ``map_batches`` over an actor
  pool, each actor one :class:`argbench.embedding.Embedder` (the model loaded once per
  actor, the vector cache consulted and filled as in a plain run); the vectors come back in
  the texts' order.

The merge scores once more on the driver from the reply and embedding caches (see
:mod:`argbench.results.merge`): on a cluster point ``$ARGBENCH_LLM_CACHE`` and
``$ARGBENCH_EMBEDDINGS_CACHE`` at a shared disk, or the driver asks the judge again.
Predictions given as a path are read by each shard: a path every node sees, or records.

Resources: each task or actor asks Ray for ``actor_cpus`` CPUs (default 0.25). Asking a whole
CPU each would let the workers hold every CPU of a small machine and starve the tasks that
feed them (a pipeline on 2 CPUs then waits for ever); the work here waits on a server or
runs its own threads, so fractions are right.

``ray`` is imported inside the functions: importing this module costs nothing without it.
"""

from __future__ import annotations

import json
import os
import pickle
import time
from pathlib import Path

import numpy as np

from argbench.constants import LLM_SECRET_OPTIONS
from argbench.embedding import Embedder
from argbench.results import evaluate_predictions, merge_fragments, plain
from argbench.results.shards import Shard, check_fragment, write_fragment

__all__ = ["RAY_EXTRA", "embed_on_ray", "evaluate_on_ray", "start_ray"]

RAY_EXTRA = 'pip install "argbench[ray]"'
FORWARDED_ENV = ("ARGBENCH_", "OPENAI_", "HF_")  # the settings the workers get (start_ray)
ACTOR_CPUS = 0.25  # see the module docstring: fractions, so the feeding tasks always run


def _ray():
    try:
        import ray
        import ray.data
    except ImportError as error:
        raise ImportError(f"the Ray route needs Ray Data: {RAY_EXTRA} ({error})") from error
    return ray


def start_ray(address: str | None = None, num_cpus: int | None = None):
    """Connect to the Ray cluster at ``address`` (``"auto"``: the one this node belongs to),
    else start a local instance with ``num_cpus`` CPUs; a running session is kept. Returns
    the seconds it took (the bench reports them apart from the work).

    The workers get this process's argbench, OpenAI and Hugging Face settings
    (``ARGBENCH_*``, ``OPENAI_*``, ``HF_*``: the judge's servers and key, the caches):
    a worker on another machine does not see this shell's environment."""
    ray = _ray()
    started = time.monotonic()
    if not ray.is_initialized():
        settings = {k: v for k, v in os.environ.items() if k.startswith(FORWARDED_ENV)}
        ray.init(
            address=address,
            num_cpus=None if address else num_cpus,
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
            runtime_env={"env_vars": settings},
        )
        ray.data.DataContext.get_current().enable_progress_bars = False
    return time.monotonic() - started


def _carried(work):
    """``work()``'s value and no error, or None and the error it raised, pickled: Ray hands the
    driver a worker's exception only as text inside its own types, so the error travels as
    data and :func:`_raise_carried` raises it again as itself (an argbench refusal keeps its
    type, message and exit code)."""
    try:
        return work(), None
    except Exception as error:  # noqa: BLE001 - every error goes back to the driver
        try:
            carried = pickle.dumps(error)
            pickle.loads(carried)
        except Exception:  # noqa: BLE001 - an error that does not pickle goes back as text
            carried = pickle.dumps(RuntimeError(f"{type(error).__name__}: {error}"))
        return None, carried


def _raise_carried(rows) -> None:
    """The first error a worker carried back (:func:`_carried`), raised here."""
    for row in rows:
        if row["error"] is not None:
            raise pickle.loads(row["error"])


def evaluate_on_ray(
    metric: str,
    predictions,
    dataset,
    config: str | None = None,
    split: str | None = None,
    *,
    shards: int = 2,
    concurrency: int = 2,
    actor_cpus: float = ACTOR_CPUS,
    command: str | None = None,
    fragments_dir=None,
    note=lambda message: None,
    **evaluate_options,
) -> dict:
    """:func:`argbench.evaluate_predictions` run as ``shards`` shards in a Ray Data pipeline
    (at most ``concurrency`` at once), merged on the driver: the results document of the
    plain run but for ``created``, ``command`` and the digest. ``evaluate_options`` are
    :func:`~argbench.evaluate_predictions`'s keyword arguments (``options=``, ``ci=``, ...).
    ``fragments_dir``: also write the shards' fragments there (``fragment-I-of-N.json``, what
    ``argbench merge`` reads). Needs a Ray session (:func:`start_ray`); a shard's error is
    raised here as it was raised there."""
    ray = _ray()
    if not isinstance(shards, int) or isinstance(shards, bool) or shards < 1:
        raise ValueError(f"shards must be an int >= 1, got {shards!r}")
    if "shard" in evaluate_options:
        raise TypeError("evaluate_on_ray takes no shard= (it cuts the run into shards itself)")

    def run_shards(batch: dict) -> dict:
        def one(index: int) -> str:
            shard = Shard(index, shards)
            fragment = evaluate_predictions(
                metric,
                predictions,
                dataset,
                config,
                split,
                shard=shard,
                command=command,
                **evaluate_options,
            )
            return json.dumps(check_fragment(plain(fragment), f"shard {shard}"), allow_nan=False)

        done = [_carried(lambda index=int(index): one(index)) for index in batch["shard"]]
        return {
            "shard": batch["shard"],
            "fragment": np.array([fragment for fragment, _ in done], dtype=object),
            "error": np.array([error for _, error in done], dtype=object),
        }

    pipeline = ray.data.from_items(
        [{"shard": index} for index in range(shards)], override_num_blocks=shards
    ).map_batches(
        run_shards,
        batch_size=1,
        compute=ray.data.TaskPoolStrategy(size=min(concurrency, shards)),
        num_cpus=actor_cpus,
    )
    rows = pipeline.take_all()
    _raise_carried(rows)
    fragments = [
        (f"Ray shard {row['shard']}/{shards}", json.loads(row["fragment"]))
        for row in sorted(rows, key=lambda row: int(row["shard"]))
    ]
    if len(fragments) != shards:
        raise RuntimeError(f"the Ray pipeline returned {len(fragments)} of {shards} shards")
    if fragments_dir is not None:
        folder = Path(fragments_dir)
        folder.mkdir(parents=True, exist_ok=True)
        for index, (_, fragment) in enumerate(fragments):
            write_fragment(fragment, folder / f"fragment-{index}-of-{shards}.json")
    secrets = _secrets(evaluate_options.get("options"))
    for _, fragment in fragments if secrets else ():  # in memory only: the merge's judge
        fragment["options"]["llm"] = {**fragment["options"]["llm"], **secrets}  # needs it too
    return merge_fragments(fragments, command=command, note=note)


def _secrets(options) -> dict:
    """The judge's secret options (an API key) given to this run, which fragments never
    record (:data:`argbench.constants.LLM_SECRET_OPTIONS`)."""
    judge = (options or {}).get("llm")
    if not isinstance(judge, dict):
        return {}
    return {key: judge[key] for key in LLM_SECRET_OPTIONS if key in judge}


class _Encoder:
    """One actor of the embedding pool: one Embedder, loaded once, used for every batch."""

    def __init__(self, model, embedder_options: dict):
        self.embedder = Embedder(model, **embedder_options)

    def __call__(self, batch: dict) -> dict:
        vectors, error = _carried(lambda: list(self.embedder.encode(list(batch["text"]))))
        if error is not None:  # one row carries the error back
            return {"index": batch["index"][:1], "vector": [None], "error": [error]}
        return {"index": batch["index"], "vector": vectors, "error": [None] * len(vectors)}


def embed_on_ray(
    model,
    texts,
    *,
    batch_size: int = 64,
    concurrency: int = 2,
    actor_cpus: float = ACTOR_CPUS,
    **embedder_options,
) -> np.ndarray:
    """``Embedder(model, **embedder_options).encode(texts)`` by a pool of up to
    ``concurrency`` actors (``map_batches`` over batches of ``batch_size`` texts): the same
    vectors, in the texts' order (a repeated text encoded once). ``model`` is a name or path each actor loads. Needs a Ray
    session (:func:`start_ray`)."""
    ray = _ray()
    texts = list(texts)
    for index, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"texts[{index}] must be a str, got {type(text).__name__}")
    if not texts:
        return np.zeros((0, 0), dtype=np.float32)
    unique = list(dict.fromkeys(texts))  # a repeated text is encoded once, as Embedder does
    blocks = max(1, min(len(unique) // batch_size, 4 * concurrency))
    pipeline = ray.data.from_items(
        [{"index": index, "text": text} for index, text in enumerate(unique)],
        override_num_blocks=blocks,
    ).map_batches(
        _Encoder,
        fn_constructor_args=(model, embedder_options),
        batch_size=batch_size,
        compute=ray.data.ActorPoolStrategy(min_size=1, max_size=concurrency),
        num_cpus=actor_cpus,
    )
    rows = pipeline.take_all()
    _raise_carried(rows)
    vectors = {int(row["index"]): np.asarray(row["vector"], dtype=np.float32) for row in rows}
    if sorted(vectors) != list(range(len(unique))):
        raise RuntimeError(f"the Ray pipeline returned {len(vectors)} of {len(unique)} vectors")
    row_of = {text: index for index, text in enumerate(unique)}
    return np.stack([vectors[row_of[text]] for text in texts])
