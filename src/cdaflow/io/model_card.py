"""A small card beside every model a `cdaflow` command loads: what it is and how far to trust it.

``model_card.json`` holds the tool it serves (``kind``), its language, the workflow scale that
built it (demo, validation, rehearsal, paper), the data it learnt from, its size and its held-out score.
Commands read it to refuse a model of another kind or language with one line, and to say on
stderr when a model is demo-scale: such a model runs, but its output is not worth studying.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cdaflow.io.structured import read_mapping

__all__ = [
    "CARD_NAME",
    "BUILD_TARGETS",
    "KINDS",
    "build_command",
    "card_from_rule",
    "check_card",
    "demo_notice",
    "read_card",
    "write_card",
]

CARD_NAME = "model_card.json"
SCALES = ("demo", "validation", "rehearsal", "paper")  # the config schema's `scale`
# Scales whose models are toys: the demo's, and the paper rehearsal's (paper code, shrunk sizes).
TOY_SCALES = ("demo", "rehearsal")
# kind -> (what the model is, the command that loads it)
KINDS: dict[str, tuple[str, str]] = {
    "cda": ("a morphological CDA model", "cdaflow cda"),
    "regender-nmt": ("a Sockeye re-gendering rewriter", "cdaflow regender --method nmt"),
    "infersent": ("an InferSent sentence encoder", "cdaflow bias-score / cdaflow seat"),
    "subjectivizer": ("a subjectivizer folder", "cdaflow subjectivize"),
}
# kind -> the Snakemake target that builds the real models of that tool (README: "Models")
BUILD_TARGETS: dict[str, str] = {
    "cda": "morph_cda_models",
    "regender-nmt": "regender_models",
    "infersent": "sentence_bias_models",
    "subjectivizer": "gap_subjective_models",
}
_REQUIRED: dict[str, tuple[type, ...]] = {
    "kind": (str,),
    "scale": (str,),
    "data": (list,),
    "size": (dict,),
    "heldout": (dict,),
}


def build_command(kind: str) -> str:
    """The command that builds the real (paper-scale) models of a tool. The target comes before
    --configfile, which would take it for a second config file."""
    return f"snakemake {BUILD_TARGETS[kind]} --configfile config/paper.yaml --cores all"


def write_card(
    folder: str | os.PathLike[str],
    *,
    kind: str,
    scale: str,
    data: list[str],
    size: Mapping[str, int | float],
    heldout: Mapping[str, Any],
    lang: str | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """Write ``model_card.json`` into `folder` (inside a model's atomic folder, before it is renamed)."""
    if kind not in KINDS:
        raise ValueError(f"unknown model kind {kind!r} ({', '.join(KINDS)})")
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r} ({', '.join(SCALES)})")
    card = {
        "kind": kind,
        "lang": lang,
        "scale": scale,
        "data": list(data),
        "size": dict(size),
        "heldout": dict(heldout),
        "build": build_command(kind),
        **extra,
    }
    Path(folder, CARD_NAME).write_text(json.dumps(card, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return card


def card_from_rule(smk: Any, **fields: Any) -> dict[str, Any]:
    """The card fields a workflow script knows from Snakemake itself: the config's scale, plus `fields`."""
    return {"scale": smk.config["scale"], **fields}


def read_card(folder: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The card of a model folder; None when it has none (a model saved before cards existed).

    A card that is not valid JSON or lacks a field raises ValueError naming the file.
    """
    path = Path(folder) / CARD_NAME
    if not path.is_file():
        return None
    card = read_mapping(path, fmt="json")
    for key, types in _REQUIRED.items():
        if not isinstance(card.get(key), types):
            raise ValueError(f"{path}: {key}: expected {types[0].__name__}, found {card.get(key)!r}")
    return card


def check_card(
    folder: str | os.PathLike[str], kind: str, *, lang: str | None = None, option: str = "--model"
) -> dict[str, Any] | None:
    """The card of `folder`, refusing a model of another kind or language with one line naming it."""
    card = read_card(folder)
    if card is None:
        return None
    if card["kind"] != kind:
        what, command = KINDS.get(card["kind"], (f"a {card['kind']!r} model", "another command"))
        raise ValueError(
            f"{option} {folder}: this is {what} (for {command}), not {KINDS[kind][0]}"
        )
    if lang is not None and card.get("lang") not in (None, lang):
        raise ValueError(f"{option} {folder}: a model for {card['lang']!r}, not {lang!r}")
    return card


def demo_notice(card: Mapping[str, Any] | None) -> str | None:
    """The one stderr line for a demo-scale (or rehearsal) model (None for any other)."""
    if not card or card.get("scale") not in TOY_SCALES:
        return None
    heldout = card.get("heldout") or {}
    score = ""
    if isinstance(heldout.get("value"), (int, float)):
        score = f" (held-out {heldout.get('metric', 'score')} {heldout['value']:.3g})"
    build = build_command(card["kind"]) if card["kind"] in BUILD_TARGETS else card.get("build", "the workflow")
    return f"{card['scale']} model{score}: for trying the command, not for research; build the real one with `{build}`"
