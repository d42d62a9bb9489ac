"""The task registry: each SentEval task's folders, loader, protocol and paper aliases."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from cdaflow.sentence_bias.senteval import data
from cdaflow.sentence_bias.senteval.data import Split

__all__ = ["PAPER_TASKS", "TASKS", "TaskSpec", "get_task", "resolve_task_folder"]

#: The twelve tasks of Dolci et al. 2023, Tables 8-9 (SentEval names).
PAPER_TASKS = (
    "MR",
    "CR",
    "SUBJ",
    "MPQA",
    "TREC",
    "SST2",
    "SST5",
    "STSBenchmark",
    "SICKRelatedness",
    "SICKEntailment",
    "STS14",
    "MRPC",
)


@dataclass(frozen=True)
class TaskSpec:
    name: str
    folders: tuple[str, ...]  # candidate folders under data_root, SentEval's first
    loader: Callable[[Path], dict[str, Split]]
    protocol: str  # "inner_kfold" | "kfold" | "split" | "relatedness" | "sts"
    n_classes: int | None = None
    pairs: bool = False
    aliases: tuple[str, ...] = field(default=())


def _binary(task: str) -> Callable[[Path], dict[str, Split]]:
    return lambda folder: data.load_binary(folder, task)


TASKS: dict[str, TaskSpec] = {
    spec.name: spec
    for spec in (
        TaskSpec("MR", ("MR",), _binary("MR"), "inner_kfold", 2),
        TaskSpec("CR", ("CR",), _binary("CR"), "inner_kfold", 2),
        TaskSpec("SUBJ", ("SUBJ",), _binary("SUBJ"), "inner_kfold", 2),
        TaskSpec("MPQA", ("MPQA",), _binary("MPQA"), "inner_kfold", 2),
        TaskSpec("SST2", ("SST/binary", "SST/Binary"), lambda f: data.load_sst(f, 2), "split", 2, aliases=("SST-2",)),
        TaskSpec(
            "SST5", ("SST/fine", "SST/Fine-Grained"), lambda f: data.load_sst(f, 5), "split", 5, aliases=("SST-5",)
        ),
        TaskSpec("TREC", ("TREC",), data.load_trec, "kfold", 6),
        TaskSpec("MRPC", ("MRPC",), data.load_mrpc, "kfold", 2, pairs=True),
        TaskSpec("SICKEntailment", ("SICK",), lambda f: data.load_sick(f, "entailment"), "split", 3, True, ("SICK-E",)),
        TaskSpec(
            "SICKRelatedness", ("SICK",), lambda f: data.load_sick(f, "relatedness"), "relatedness", 5, True,
            ("SICK-R",),
        ),
        TaskSpec("STSBenchmark", ("STS/STSBenchmark",), data.load_stsb, "relatedness", 5, True, ("STS-B", "STSB")),
        TaskSpec("STS14", ("STS/STS14-en-test",), data.load_sts14, "sts", None, True),
    )
}


def get_task(name: str) -> TaskSpec:
    """Task by SentEval name (``"SICKEntailment"``) or paper alias (``"SICK-E"``, ``"SST-2"``, ``"STS-B"``)."""
    if name in TASKS:
        return TASKS[name]
    for spec in TASKS.values():
        if name in spec.aliases:
            return spec
    raise ValueError(f"unknown SentEval task {name!r}; known: {', '.join(TASKS)}")


def resolve_task_folder(data_root: str | Path, task: str | TaskSpec) -> Path:
    """The first existing candidate folder of the task under ``data_root`` (or ``data_root/downstream``).

    When none exists, the SentEval-layout folder under ``data_root`` (the loader then raises
    :class:`TaskDataMissing` naming it).
    """
    spec = task if isinstance(task, TaskSpec) else get_task(task)
    root = Path(data_root)
    for base in (root, root / "downstream"):
        for rel in spec.folders:
            if (base / rel).is_dir():
                return base / rel
    return root / spec.folders[0]
