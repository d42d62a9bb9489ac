"""Agreement of the hspell segmenter (src/cdaflow/text/hebrew.py) with the UD Hebrew treebank's own
segmentation: each sentence's `# text` is segmented and every surface token's syntactic words are
compared with the treebank's (a multiword token `1-2` gives the gold split).

    python benchmarks/hebrew_segmentation.py [FILE.conllu ...] [--errors N]

Default files: the UD_Hebrew-HTB sample in ../shared/data (dev, test). Prints, per file, word-level
accuracy (surface tokens whose words are all right), accuracy on the tokens HTB splits and on those
it keeps whole, and the tokens whose surface forms the segmenter's tokenizer did not reproduce.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HTB = ROOT.parent / "shared" / "data" / "ud-treebanks-v2.2" / "UD_Hebrew-HTB"


def gold_segments(path: Path) -> list[tuple[str, list[tuple[str, tuple[str, ...]]]]]:
    """(text, [(surface token, its words)]) of each sentence of a CoNLL-U file."""
    from cdaflow.io.conllu import is_multiword, read_conllu, surface_tokens, words

    out = []
    for sentence in read_conllu(path):
        by_id = {w["id"]: w["form"] for w in words(sentence)}
        segments = []
        for token in surface_tokens(sentence):
            if is_multiword(token):
                first, _, last = token["id"]
                segments.append((token["form"], tuple(by_id[i] for i in range(first, last + 1))))
            else:
                segments.append((token["form"], (token["form"],)))
        out.append((str(sentence.metadata["text"]), segments))
    return out


def evaluate(path: Path, segmenter, errors: int = 0) -> dict[str, float]:
    sentences = gold_segments(path)
    predicted = segmenter.segment_many([text for text, _ in sentences])
    counts: Counter[str] = Counter()
    wrong: Counter[tuple[str, str, str]] = Counter()
    for (_, gold), mine in zip(sentences, predicted):
        mine_by_surface = [(s.surface, s.words) for s in mine]
        if [g for g, _ in gold] != [m for m, _ in mine_by_surface]:
            counts["misaligned_sentences"] += 1
            mine_map: dict[str, list[tuple[str, ...]]] = {}
            for surface, ws in mine_by_surface:
                mine_map.setdefault(surface, []).append(ws)
            pairs = [(g, ws, mine_map[g].pop(0) if mine_map.get(g) else None) for g, ws in gold]
        else:
            pairs = [(g, ws, m) for (g, ws), (_, m) in zip(gold, mine_by_surface)]
        for surface, gold_words, mine_words in pairs:
            kind = "split" if len(gold_words) > 1 else "whole"
            counts[f"{kind}_total"] += 1
            counts["total"] += 1
            if mine_words == gold_words:
                counts[f"{kind}_right"] += 1
                counts["right"] += 1
            elif mine_words is not None:
                wrong[(surface, " ".join(gold_words), " ".join(mine_words))] += 1
            else:
                counts["untokenized"] += 1
    result = {
        "tokens": counts["total"],
        "accuracy": counts["right"] / counts["total"],
        "split_accuracy": counts["split_right"] / max(counts["split_total"], 1),
        "whole_accuracy": counts["whole_right"] / max(counts["whole_total"], 1),
        "split_tokens": counts["split_total"],
        "tokens_not_reproduced": counts["untokenized"],
    }
    for (surface, gold_words, mine_words), n in wrong.most_common(errors):
        print(f"  {n:3d}  {surface}\tgold: {gold_words}\tmine: {mine_words}")
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--errors", type=int, default=0, help="print the N commonest disagreements")
    args = parser.parse_args(argv)
    files = args.files or sorted(HTB.glob("he_htb-ud-*.conllu"))
    if not files:
        print(f"no treebank files given and none at {HTB}", file=sys.stderr)
        return 1
    from cdaflow.text.hebrew import Segmenter
    from cdaflow.text.hspell import hspell_missing

    problem = hspell_missing()
    if problem:
        print(problem, file=sys.stderr)
        return 1
    segmenter = Segmenter.for_language("he")
    for path in files:
        result = evaluate(path, segmenter, args.errors)
        print(f"{path.name}: {result['tokens']} tokens, accuracy {100 * result['accuracy']:.1f} % "
              f"(split by HTB: {result['split_tokens']}, {100 * result['split_accuracy']:.1f} %; whole: "
              f"{100 * result['whole_accuracy']:.1f} %); tokens not reproduced: {result['tokens_not_reproduced']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
