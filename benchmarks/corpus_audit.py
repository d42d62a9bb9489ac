"""Corpus audit of Study A: share of `cdaflow cda`'s changed corpus lines judged right by hand.

Reads the ``# text`` lines of the UD 2.2 samples in ``../shared/data/ud-treebanks-v2.2`` (es:
AnCora and GSD, dev and test, pooled; fr: GSD dev and test; it: ISDT dev and test; he: HTB dev and
test, raw Hebrew with its prefixes split by hspell), puts them in a fixed shuffled order
(``--seed``), runs the real ``cdaflow cda`` command on the first ``--pool`` of them as raw text (as a
user would: default options, lexicon check included) and samples the first ``--sample`` lines whose
output changed (a counterfactual that differs from the original), in that order. Each sampled
line is looked up in the gold file ``benchmarks/corpus_audit/<lang>.tsv`` by its exact (original,
counterfactual) pair, judged by hand once by the rules of ``benchmarks/corpus_audit/README.md``.

Prints the share right among the judged pairs, the wrong ones per error class, and the pairs with
no judgment (the output changed since the judging): those are counted apart and never as right;
``--pending FILE`` writes them as gold rows to judge. ``--check`` exits 1 unless every sampled pair
is judged and the share right reaches ``--target``.

    python benchmarks/corpus_audit.py --lang es [--model results/morph_cda/es/models/lin]
        [--pending /tmp/es-pending.tsv] [--check]
    python benchmarks/corpus_audit.py --lang it -- --gazetteer resources/morph_cda/gazetteers/it.tsv
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOLD_DIR = ROOT / "benchmarks" / "corpus_audit"
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "ud-treebanks-v2.2"
SOURCES = {
    "es": [
        "UD_Spanish-AnCora/es_ancora-ud-dev.conllu",
        "UD_Spanish-AnCora/es_ancora-ud-test.conllu",
        "UD_Spanish-GSD/es_gsd-ud-dev.conllu",
        "UD_Spanish-GSD/es_gsd-ud-test.conllu",
    ],
    "fr": [
        "UD_French-GSD/fr_gsd-ud-dev.conllu",
        "UD_French-GSD/fr_gsd-ud-test.conllu",
    ],
    "it": [
        "UD_Italian-ISDT/it_isdt-ud-dev.conllu",
        "UD_Italian-ISDT/it_isdt-ud-test.conllu",
    ],
    "he": [
        "UD_Hebrew-HTB/he_htb-ud-dev.conllu",
        "UD_Hebrew-HTB/he_htb-ud-test.conllu",
    ],
}
COLUMNS = ["original", "counterfactual", "judgment", "error_class", "note"]
JUDGMENTS = ("right", "wrong")
ERROR_CLASSES = (
    "elision",
    "spacing",
    "name_changed",
    "pronoun_not_person",
    "agreement_missed",
    "agreement_wrong",
    "wrong_form",
    "partial_change",
    "not_a_person",
    "other",
)
SEED = 20190728


@dataclass(frozen=True)
class Line:
    """One ``# text`` line of a treebank: where it comes from and the text."""

    source: str
    sent_id: str
    text: str


@dataclass(frozen=True)
class Judgment:
    judgment: str
    error_class: str
    note: str


def read_texts(path: Path, source: str | None = None) -> list[Line]:
    """The ``# text`` lines of a CoNLL-U file, with their ``# sent_id`` (or their position)."""
    lines: list[Line] = []
    sent_id = None
    with open(path, encoding="utf-8") as handle:
        for raw in handle:
            raw = raw.rstrip("\n")
            if raw.startswith("# sent_id"):
                sent_id = raw.split("=", 1)[1].strip()
            elif raw.startswith("# text ="):
                text = raw.split("=", 1)[1].strip()
                if text:
                    lines.append(Line(source or path.name, sent_id or str(len(lines) + 1), text))
            elif not raw.strip():
                sent_id = None
    return lines


def shuffled(lines: list[Line], seed: int = SEED) -> list[Line]:
    """The lines in a fixed order that depends on the seed only, not on the files' order."""
    ordered = sorted(lines, key=lambda line: (line.source, line.sent_id, line.text))
    random.Random(seed).shuffle(ordered)
    return ordered


def changed(record: dict) -> bool:
    """Whether a `cdaflow cda` JSON record shows a counterfactual different from its original."""
    counterfactual = record.get("counterfactual")
    return bool(counterfactual) and counterfactual != record.get("original")


def sample_changed(records: list[dict], size: int) -> list[tuple[str, str]]:
    """The (original, counterfactual) pairs of the first ``size`` changed records, in order."""
    pairs = [(r["original"], r["counterfactual"]) for r in records if changed(r)]
    return pairs[:size]


def read_gold(path: Path) -> dict[tuple[str, str], Judgment]:
    """The gold file's judgments keyed by (original, counterfactual); a bad row stops with its line."""
    gold: dict[tuple[str, str], Judgment] = {}
    if not path.exists():
        return gold
    rows = path.read_text(encoding="utf-8").split("\n")
    header = rows[0].rstrip("\r").split("\t")
    if header != COLUMNS:
        raise ValueError(f"{path}: line 1: expected the header {' '.join(COLUMNS)}, got {header}")
    for number, row in enumerate(rows[1:], start=2):
        cells = row.rstrip("\r").split("\t")
        if not "".join(cells).strip():
            continue
        if len(cells) != len(COLUMNS):
            raise ValueError(f"{path}: line {number}: {len(cells)} fields, expected {len(COLUMNS)}")
        original, counterfactual, judgment, error_class, note = cells
        if judgment not in JUDGMENTS:
            raise ValueError(f"{path}: line {number}: judgment {judgment!r} is not one of {JUDGMENTS}")
        if judgment == "wrong" and error_class not in ERROR_CLASSES:
            raise ValueError(f"{path}: line {number}: error class {error_class!r} is not one of {ERROR_CLASSES}")
        if judgment == "right" and error_class:
            raise ValueError(f"{path}: line {number}: a right row has no error class")
        key = (original, counterfactual)
        if key in gold and gold[key].judgment != judgment:
            raise ValueError(f"{path}: line {number}: the pair is judged both right and wrong")
        gold[key] = Judgment(judgment, error_class, note)
    return gold


@dataclass
class Score:
    sampled: int
    right: int
    wrong: int
    unjudged: list[tuple[str, str]]
    classes: Counter

    @property
    def judged(self) -> int:
        return self.right + self.wrong

    @property
    def share_right(self) -> float:
        """Right among the judged pairs (0 when none is judged)."""
        return self.right / self.judged if self.judged else 0.0

    @property
    def share_right_of_sample(self) -> float:
        """Right among all sampled pairs: an unjudged pair counts as not right."""
        return self.right / self.sampled if self.sampled else 0.0


def score(pairs: list[tuple[str, str]], gold: dict[tuple[str, str], Judgment]) -> Score:
    """Right, wrong (per class) and unjudged among the sampled pairs."""
    right = wrong = 0
    unjudged: list[tuple[str, str]] = []
    classes: Counter = Counter()
    for pair in pairs:
        judgment = gold.get(pair)
        if judgment is None:
            unjudged.append(pair)
        elif judgment.judgment == "right":
            right += 1
        else:
            wrong += 1
            classes[judgment.error_class] += 1
    return Score(len(pairs), right, wrong, unjudged, classes)


def write_pending(path: Path, pairs: list[tuple[str, str]]) -> None:
    """The unjudged pairs as gold rows with the judgment left empty."""
    rows = ["\t".join(COLUMNS)]
    for pair in pairs:
        if any(c in text for text in pair for c in "\t\r\n"):
            raise ValueError(f"a tab or line break in a pair cannot be written as a gold row: {pair!r}")
        rows.append("\t".join([*pair, "", "", ""]))
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")


def run_cda(lang: str, model: Path, texts: list[str], extra: list[str]) -> list[dict]:
    """`cdaflow cda` on the texts, one per line, as raw text; its JSON records in input order."""
    with tempfile.TemporaryDirectory(prefix="corpus_audit.") as tmp:
        source, target = Path(tmp) / "input.txt", Path(tmp) / "output.jsonl"
        source.write_text("".join(text + "\n" for text in texts), encoding="utf-8")
        command = [sys.executable, "-c", "import sys; from cdaflow.cli import main; sys.exit(main())",
                   "cda", "--lang", lang, "--model", str(model), "--input", str(source),
                   "--output", str(target), *extra]
        subprocess.run(command, check=True)
        records = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines() if line]
    if len(records) != len(texts):
        raise RuntimeError(f"cdaflow cda wrote {len(records)} records for {len(texts)} lines")
    for record, text in zip(records, texts):
        if record["original"] != text:
            raise RuntimeError(f"cdaflow cda's record {record.get('line')} is not the line {text!r}")
    return records


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lang", choices=sorted(SOURCES), required=True)
    parser.add_argument("--model", type=Path, help="default: results/morph_cda/<lang>/models/lin")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the UD 2.2 samples' folder")
    parser.add_argument("--gold", type=Path, help="default: benchmarks/corpus_audit/<lang>.tsv")
    parser.add_argument("--sample", type=int, default=100, help="changed lines sampled (default: 100)")
    parser.add_argument("--pool", type=int, default=800,
                        help="shuffled lines run through cdaflow cda to find them (default: 800)")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--pending", type=Path, help="write the unjudged pairs here, as gold rows to judge")
    parser.add_argument("--show-wrong", action="store_true", help="print the sampled pairs judged wrong")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 unless every sampled pair is judged and the share right reaches --target")
    parser.add_argument("--target", type=float, default=0.90)
    parser.add_argument("cda_args", nargs="*", help="after --: more cdaflow cda options")
    args = parser.parse_args(argv)
    model = args.model or ROOT / f"results/morph_cda/{args.lang}/models/lin"
    gold_path = args.gold or GOLD_DIR / f"{args.lang}.tsv"
    files = [args.data / name for name in SOURCES[args.lang]]
    for path, hint in [(model, "train one: snakemake --configfile config/validation.yaml "
                        f"results/morph_cda/{args.lang}/models/lin")] + [(f, "") for f in files]:
        if not path.exists():
            print(f"skipped: {path} not found {hint}")
            return 0
    lines = shuffled([line for path in files for line in read_texts(path, path.parent.name + "/" + path.name)],
                     args.seed)
    pool = lines[: args.pool]
    records = run_cda(args.lang, model, [line.text for line in pool], args.cda_args)
    pairs = sample_changed(records, args.sample)
    gold = read_gold(gold_path)
    result = score(pairs, gold)
    silent = sum(1 for r in records if not changed(r) and r.get("intervened"))
    print(f"{args.lang}: {len(lines)} lines in {len(files)} files; the first {len(pool)} (seed {args.seed}) "
          f"through cdaflow cda ({model}): {sum(map(changed, records))} changed, {silent} with an "
          f"intervened word but no change")
    if result.sampled < args.sample:
        print(f"warning: only {result.sampled} changed lines in the pool, not {args.sample}: raise --pool")
    print(f"sampled {result.sampled}; judged {result.judged} ({gold_path}); unjudged {len(result.unjudged)}")
    print(f"right: {result.right}/{result.judged} judged = {100 * result.share_right:.1f} %  "
          f"({result.right}/{result.sampled} of the sample, unjudged counted not right = "
          f"{100 * result.share_right_of_sample:.1f} %)")
    for name, count in result.classes.most_common():
        print(f"  wrong, {name:<20} {count:3d}")
    if args.show_wrong:
        for pair in pairs:
            judgment = gold.get(pair)
            if judgment is not None and judgment.judgment == "wrong":
                print(f"\n[{judgment.error_class}] {judgment.note}\n  - {pair[0]}\n  + {pair[1]}")
    if result.unjudged:
        print(f"{len(result.unjudged)} sampled pairs have no judgment (the output changed since the judging)"
              + (f": written to {args.pending}" if args.pending else "; --pending FILE writes them"))
        if args.pending:
            write_pending(args.pending, result.unjudged)
    if args.check:
        ok = not result.unjudged and result.share_right >= args.target
        print(f"check: {'passed' if ok else 'FAILED'} (target {100 * args.target:.0f} %, every pair judged)")
        return 0 if ok else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
