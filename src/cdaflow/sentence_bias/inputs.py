"""The inputs of the bias-score and SEAT tools (``cdaflow bias-score``, ``cdaflow seat`` and
:mod:`cdaflow.api`): the workflow's default files, the encoders offered, and readers of an encoder,
a gender direction and a gender word list that refuse a wrong file in one line."""

from __future__ import annotations

from pathlib import Path

from cdaflow.io.text import numbered_lines

RESULTS = Path("results/sentence_bias")
ENCODERS = ("infersent", "sbert")
DEFAULT_DIRECTIONS = {
    "infersent": RESULTS / "gender_direction.npy",
    "sbert": RESULTS / "transformer" / "gender_direction.npy",
}
DEFAULT_VECTORS = RESULTS / "vectors"
DEFAULT_WORDS = RESULTS / "gender_words.txt"


def load_transformer(model: str):
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


def read_gender_words(path: Path):
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


def load_direction(path: Path):
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


def token_dimensions(encoder) -> int:
    """Dimensions of the space the direction lives in: GloVe's for InferSent, the encoder's for SBERT."""
    return encoder.dim if hasattr(encoder, "tokenizer") else encoder.vectors.dim
