"""The packaged model folder of `cdaflow cda`: the MRF, the reinflector, the gazetteer and the tuned
settings in one folder, written, checked and loaded."""

from __future__ import annotations

import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cdaflow.io.atomic import atomic_directory
from cdaflow.io.model_card import write_card
from cdaflow.io.models import check_settings
from cdaflow.io.structured import read_mapping
from cdaflow.morph_cda.cda import INHERENT_GENDER, CounterfactualGenerator
from cdaflow.morph_cda.gazetteer import Gazetteer
from cdaflow.morph_cda.model import AgreementMRF
from cdaflow.morph_cda.reinflection import Reinflector

MODEL_FILES = ("cda.json", "mrf", "reinflection", "gazetteer.tsv")


def save_model(
    destination: Path,
    mrf: AgreementMRF,
    reinflector_dir: Path,
    gazetteer: Path,
    log_alpha: float,
    *,
    carry_gender: bool = False,
    inherent_gender: Sequence[str] = INHERENT_GENDER,
    card: dict[str, Any] | None = None,
) -> None:
    """One self-contained folder: the MRF, the reinflector, the gazetteer and the tuned settings;
    `card` (scale, data, size, held-out scores) becomes its model_card.json."""
    with atomic_directory(destination) as tmp:
        if card is not None:
            write_card(tmp, kind="cda", lang=mrf.lang, **card)
        mrf.save(tmp / "mrf")
        shutil.copytree(reinflector_dir, tmp / "reinflection")
        Gazetteer.read(gazetteer).write(tmp / "gazetteer.tsv")  # normalised to one format
        settings = {
            "lang": mrf.lang,
            "parameterization": mrf.parameterization,
            "log_alpha": log_alpha,
            "carry_gender": carry_gender,
            "inherent_gender": list(inherent_gender),
        }
        (tmp / "cda.json").write_text(json.dumps(settings, indent=1))


def check_model_folder(directory: Path) -> None:
    """FileNotFoundError unless `directory` holds a model's files (cheap: nothing is read)."""
    if not directory.is_dir():
        raise FileNotFoundError(
            f"{directory}: model folder not found (the workflow writes results/morph_cda/<lang>/models/lin)"
        )
    missing = [name for name in MODEL_FILES if not (directory / name).exists()]
    if missing:
        raise FileNotFoundError(f"{directory}: not a cdaflow CDA model (missing {', '.join(missing)})")


def load_model(
    directory: Path, device: str = "cpu", threads: int | None = None, *, lexicon_check: bool = False
) -> tuple[CounterfactualGenerator, Gazetteer]:
    """Load a folder written by `save_model`; a clear error when it is not one. `lexicon_check`:
    see CounterfactualGenerator (the workflow leaves it off, `cdaflow cda` turns it on)."""
    check_model_folder(directory)
    settings = check_settings(
        read_mapping(directory / "cda.json", fmt="json"),
        directory / "cda.json",
        {"lang": str, "log_alpha": float},
    )
    for key, expected in (("carry_gender", bool), ("inherent_gender", list)):
        if key in settings and not isinstance(settings[key], expected):
            raise ValueError(f"{directory / 'cda.json'}: {key}: expected {expected.__name__}, found {settings[key]!r}")
    mrf = AgreementMRF.load(directory / "mrf", device)
    reinflector = Reinflector.load(directory / "reinflection", device=device, threads=threads)
    generator = CounterfactualGenerator(
        mrf,
        reinflector,
        settings["lang"],
        settings["log_alpha"],
        carry_gender=settings.get("carry_gender", False),
        # folders saved before the setting existed let every word change, as they did then
        inherent_gender=settings.get("inherent_gender", ()),
        lexicon_check=lexicon_check,
    )
    return generator, Gazetteer.read(directory / "gazetteer.tsv")
