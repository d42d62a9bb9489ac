"""Transfer, score and threshold sentences in one go (§3.2.2-3.2.3): the `cdaflow subjectivize` tool.

The workflow runs the steps as separate rules over GAP's splits; a researcher with their own
sentences wants them together. A *subjectivizer* folder holds ``manifest.json`` naming (relative to
itself) the transfer model folder, the detector folder, the fluency LM and the thresholds the
workflow used, so the tool reproduces the workflow's verdicts exactly.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from cdaflow.gap_subjective.threshold import Thresholds, score_transfers
from cdaflow.io.structured import read_mapping
from cdaflow.io.weights import broken_file, quiet_libraries

__all__ = [
    "MANIFEST", "Subjectivizer", "bundle", "load_fluency_scorer", "read_manifest", "write_manifest",
]

MANIFEST = "manifest.json"


def load_fluency_scorer(
    backend: str, source: str | os.PathLike[str], *, device: str = "cpu", batch_size: int = 32
) -> Any:
    """The perplexity scorer of a fluency config: ``hf`` (a causal LM) or ``lstm`` (our LM folder)."""
    from cdaflow.gap_subjective.fluency import HFCausalLMScorer, LSTMScorer

    if backend == "hf":
        return HFCausalLMScorer.load(str(source), device=device, batch_size=batch_size)
    if backend == "lstm":
        return LSTMScorer.load(source, device=device)
    raise ValueError(f"unknown fluency backend {backend!r} (hf, lstm)")


def write_manifest(
    path: str | os.PathLike[str],
    *,
    transfer: str | os.PathLike[str],
    detector: str | os.PathLike[str],
    fluency: Mapping[str, Any],
    thresholds: Mapping[str, Any],
    detector_threshold: float,
) -> dict[str, Any]:
    """Write ``manifest.json``; folders are stored relative to it so the results tree can move."""
    from cdaflow.io.atomic import atomic_file

    root = Path(path).parent.resolve()
    manifest = {
        "transfer": os.path.relpath(Path(transfer).resolve(), root),
        "detector": os.path.relpath(Path(detector).resolve(), root),
        "detector_threshold": detector_threshold,
        "fluency": {
            key: (os.path.relpath(Path(value).resolve(), root) if key == "path" else value)
            for key, value in fluency.items()
        },
        "thresholds": dict(thresholds),
    }
    with atomic_file(Path(path)) as handle:
        json.dump(manifest, handle, indent=2)
        handle.write("\n")
    return manifest


@contextlib.contextmanager
def _loading(manifest: Path, part: str, folder: Any) -> Iterator[None]:
    """One line naming the part and its folder (and the broken file when one is found) for any
    failure while a part loads: torch, transformers, safetensors and SentencePiece each raise their own."""
    try:
        yield
    except (FileNotFoundError, ValueError) as error:
        if str(folder) in str(error) or str(manifest) in str(error):
            raise
        raise ValueError(f"{manifest}: {part} {folder}: {' '.join(str(error).split())[:300]}") from None
    except Exception as error:  # noqa: BLE001 - see the docstring
        broken = broken_file(folder) if isinstance(folder, Path) else None
        reason = broken or f"{type(error).__name__}: {' '.join(str(error).split())[:300]}"
        raise ValueError(f"{manifest}: {part} {folder} does not load: {reason}") from None


def bundle(
    folder: str | os.PathLike[str],
    *,
    transfer: str | os.PathLike[str],
    detector: str | os.PathLike[str],
    fluency: Mapping[str, Any],
    thresholds: Mapping[str, Any],
    detector_threshold: float,
    card: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A self-contained subjectivizer folder: the transfer model, the detector and a local fluency LM
    linked (hard links where the file system allows, else copies) into ``transfer/``, ``detector/``
    and ``fluency/``, beside ``manifest.json`` and the model card. It still works once moved."""
    from cdaflow.io.atomic import atomic_directory
    from cdaflow.io.model_card import write_card

    with atomic_directory(folder) as tmp:
        _link_tree(Path(transfer), tmp / "transfer")
        _link_tree(Path(detector), tmp / "detector")
        fluency = dict(fluency)
        if "path" in fluency:
            _link_tree(Path(fluency["path"]), tmp / "fluency")
            fluency["path"] = tmp / "fluency"
        manifest = write_manifest(
            tmp / MANIFEST, transfer=tmp / "transfer", detector=tmp / "detector", fluency=fluency,
            thresholds=thresholds, detector_threshold=detector_threshold,
        )
        if card is not None:
            write_card(tmp, kind="subjectivizer", lang="en", **card)
    return manifest


def _link_tree(source: Path, destination: Path) -> None:
    """Copy a folder as hard links (no second copy of a large model), falling back to copies."""
    import shutil

    def link(src: str, dst: str) -> None:
        try:
            os.link(src, dst)
        except OSError:
            shutil.copy2(src, dst)

    if not source.is_dir():
        raise FileNotFoundError(f"{source}: no such model folder")
    shutil.copytree(source, destination, copy_function=link)


# What :func:`write_manifest` writes: key -> the JSON types its value may have.
_MANIFEST_KEYS: dict[str, tuple[type, ...]] = {
    "transfer": (str,),
    "detector": (str,),
    "detector_threshold": (int, float),
    "fluency": (dict,),
    "thresholds": (dict,),
}


def read_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A subjectivizer's ``manifest.json``, checked key by key; ValueError names the file and the key."""
    path = Path(path)
    manifest = read_mapping(path, fmt="json")
    missing = [key for key in _MANIFEST_KEYS if key not in manifest]
    if missing:
        raise ValueError(
            f"{path}: missing key(s) {', '.join(missing)} (a subjectivizer manifest has {', '.join(_MANIFEST_KEYS)})"
        )
    for key, types in _MANIFEST_KEYS.items():
        if not isinstance(manifest[key], types) or isinstance(manifest[key], bool):
            raise ValueError(f"{path}: {key}: unexpected value {manifest[key]!r}")
    fluency = manifest["fluency"]
    if fluency.get("backend") not in ("hf", "lstm"):
        raise ValueError(f"{path}: fluency.backend: expected 'hf' or 'lstm', found {fluency.get('backend')!r}")
    if not isinstance(fluency.get("path", fluency.get("model")), str):
        raise ValueError(f"{path}: fluency: needs a 'path' (a folder beside the manifest) or a 'model' (a Hub id)")
    return manifest


@dataclass
class Subjectivizer:
    """A transfer model with the detector, fluency scorer and thresholds that judge its output."""

    transferer: Any
    detector: Any
    scorer: Any
    thresholds: Thresholds
    detector_threshold: float

    @classmethod
    def load(cls, folder: str | os.PathLike[str], *, device: str = "cpu") -> Subjectivizer:
        from cdaflow.gap_subjective.detector import Detector
        from cdaflow.gap_subjective.pieces import encode_pieces
        from cdaflow.gap_subjective.transferer import Transferer

        folder = Path(folder)
        manifest_path = folder / MANIFEST
        if not manifest_path.is_file():
            raise FileNotFoundError(
                f"{manifest_path}: no subjectivizer manifest (the workflow writes "
                "results/gap_subjective/subjectivizer/manifest.json)"
            )
        manifest = read_manifest(manifest_path)
        try:
            thresholds = Thresholds.from_config(manifest["thresholds"])
        except (TypeError, ValueError) as error:
            raise ValueError(f"{manifest_path}: thresholds: {error}") from None
        fluency = manifest["fluency"]
        source = folder / fluency["path"] if "path" in fluency else fluency["model"]
        parts = {"transfer": folder / manifest["transfer"], "detector": folder / manifest["detector"],
                 "fluency": source}
        for name, path in parts.items():
            if isinstance(path, Path) and not path.is_dir():
                raise FileNotFoundError(
                    f"{manifest_path}: {name}: no folder {path} (a subjectivizer written before cdaflow bundled "
                    "its parts inside it stops working once moved; rebuild it with the workflow)"
                )
        with _loading(manifest_path, "transfer", parts["transfer"]), quiet_libraries():
            transferer = Transferer.from_model_dir(parts["transfer"], device=device)
            encode_pieces(transferer.spm_model, ["check"])  # a broken SentencePiece model fails here, not mid-run
        with _loading(manifest_path, "detector", parts["detector"]), quiet_libraries():
            detector = Detector.load(parts["detector"], device=device)
        with _loading(manifest_path, "fluency", source), quiet_libraries():
            scorer = load_fluency_scorer(fluency["backend"], source, device=device)
        return cls(
            transferer=transferer,
            detector=detector,
            scorer=scorer,
            thresholds=thresholds,
            detector_threshold=float(manifest["detector_threshold"]),
        )

    def run(self, sentences: Sequence[str]) -> pd.DataFrame:
        transferred = self.transferer.transfer(sentences)
        return score_transfers(
            sentences,
            transferred,
            self.detector.predict_proba(sentences),
            scorer=self.scorer,
            thresholds=self.thresholds,
            detector_threshold=self.detector_threshold,
        )
