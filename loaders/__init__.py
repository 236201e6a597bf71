"""The corpora: one module per dataset, each a ``datasets.GeneratorBasedBuilder``."""

from __future__ import annotations

import importlib

# name -> "module:Class"; modules are imported only when a dataset is used.
DATASETS: dict[str, str] = {
    "claimdiff": "claimdiff:ClaimDiff",
    "cqs_gen": "cqs_gen:CqsGen",
    "cam_relevance": "cam_relevance:CamRelevance",
    "cam_answers": "cam_answers:CamAnswers",
    "webis_argquality20": "webis_argquality20:WebisArgQuality20",
    "ukpconvarg1": "ukpconvarg1:UKPConvArg1",
}


def builder_class(name: str):
    """The builder class of dataset ``name``."""
    if name not in DATASETS:
        raise KeyError(f"unknown dataset {name!r}; available: {', '.join(sorted(DATASETS))}")
    module_name, class_name = DATASETS[name].split(":")
    module = importlib.import_module(f"{__name__}.{module_name}")
    return getattr(module, class_name)
