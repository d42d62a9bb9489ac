"""SEAT, the Sentence Encoder Association Test (May et al. 2019), as in W4ngatang/sent-bias.

Study D (Dolci et al. 2023, §5.1.1, Tables 6-7) reports the SEAT effect size of sentence encoders on the
gender tests C6-C8b and the "retention" tests C1-C2.  This module re-implements ``sentbias/weat.py``:

* **test files** -- the sent-bias JSON format ``{"targ1": {"category", "examples"}, "targ2", "attr1",
  "attr2"}`` (one pretty-printed JSON object per ``*.jsonl`` file, read with ``json.load`` as sent-bias
  does).  sent-bias keeps encodings in dicts keyed by the sentence, so a duplicated example counts once;
  :func:`read_seat` drops duplicates within a set (keeping the first) to match.  The real files have none.
* **effect size** -- ``d = (mean_x s(x,A,B) - mean_y s(y,A,B)) / std_{w in X u Y} s(w,A,B)`` with
  ``s(w,A,B) = mean_a cos(w,a) - mean_b cos(w,b)``; the standard deviation is the *sample* one
  (``np.std(..., ddof=1)``), exactly as ``weat.stdev_s_wAB``.  Positive ``d``: X is closer to A (and/or
  Y to B) -- "stereotypical" for the gender tests.
* **p-value** -- one-sided permutation test of ``s(X,Y,A,B) = sum_x s(x,A,B) - sum_y s(y,A,B)`` over the
  equal-size partitions ``(X_i, Y_i)`` of ``X u Y``.  As sent-bias notes, ``sum_{X_i} s + sum_{Y_i} s`` is
  the same constant for every partition, so ``sum_{X_i} s`` is an equivalent statistic.
  - ``exact`` when ``C(2n, n) <= n_samples``: every ordered partition (every ``n``-subset as ``X_i``),
    ``p = #{i : t_i >= t_obs} / C(2n, n)``;
  - ``sampled`` otherwise: ``n_samples - 1`` independent uniformly random partitions (with replacement),
    plus one "hallucinated" positive observation as sent-bias does (``total_true = total = 1`` before the
    loop), ``p = (1 + #{i : t_i >= t_obs}) / n_samples``;
  - ``parametric`` (sent-bias ``--parametric``): ``n_samples`` random partitions of the ``X - Y``
    statistic, and ``p = norm.sf(t_obs, sample mean, sample std ddof=1)`` (always sampled, as sent-bias).
  Ties count as ``>=`` (sent-bias's "conservative test").  Unlike sent-bias's exact ``==``, a partition
  whose sum differs from the observed one only by floating-point rounding (relative 1e-10) counts as a
  tie, so the observed partition always counts itself whatever the summation order.

Differences from sent-bias, all deliberate: the permutations are vectorised (``s`` is computed once for
all of ``X u Y``; partitions are index matrices processed in chunks), and they are drawn from
``numpy.random.default_rng(seed)`` per call, not from the global Mersenne-Twister stream that sent-bias
seeds once (1111) and then shares across tests -- sampled p-values are therefore statistically, not
bitwise, equivalent.  Exact p-values and effect sizes are identical.  sent-bias runs a test only when
``|X| == |Y|``; :func:`p_value` requires it too, :func:`effect_size` does not.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "PAPER_TESTS",
    "SEAT_FILES",
    "SEAT_SETS",
    "PValue",
    "SeatFormatError",
    "SeatTest",
    "association",
    "effect_size",
    "load_seat_tests",
    "n_partitions",
    "p_value",
    "read_seat",
    "run_seat",
]

#: The four sets of a sent-bias test file, in file order.
SEAT_SETS = ("targ1", "targ2", "attr1", "attr2")

#: The tests Dolci et al. 2023 report (Tables 6, 7 and 11): C1-C2 (retention) and the gender tests C6-C8b.
PAPER_TESTS = ("C1", "C2", "C6", "C6b", "C7", "C7b", "C8", "C8b")

#: May et al.'s test names -> sent-bias file stems (``tests/<stem>.jsonl``).  C<k> is Caliskan et al.'s
#: WEAT<k> with the words put in semantically bleached sentence templates; the ``b`` variants swap the
#: given names for group terms (or the reverse), exactly as sent-bias names its files.
SEAT_FILES: dict[str, str] = {
    "C1": "sent-weat1",  # flowers/insects x pleasant/unpleasant
    "C2": "sent-weat2",  # instruments/weapons x pleasant/unpleasant
    "C3": "sent-weat3",  # European/African American names x pleasant/unpleasant
    "C3b": "sent-weat3b",
    "C4": "sent-weat4",
    "C5": "sent-weat5",
    "C5b": "sent-weat5b",
    "C6": "sent-weat6",  # male/female names x career/family
    "C6b": "sent-weat6b",  # male/female terms x career/family
    "C7": "sent-weat7",  # math/arts x male/female terms
    "C7b": "sent-weat7b",  # math/arts x male/female names
    "C8": "sent-weat8",  # science/arts x male/female terms
    "C8b": "sent-weat8b",  # science/arts x male/female names
    "C9": "sent-weat9",
    "C10": "sent-weat10",
}

#: Rows of the vectorised permutation matrices hold about this many indices per chunk (memory ~16 MB).
_CHUNK_ELEMENTS = 2_000_000
#: Partition sums within this relative distance of the observed sum count as ties (>=).
_TIE_RTOL = 1e-10


class SeatFormatError(ValueError):
    """A SEAT test file is not in the sent-bias format (the message names the file and the key)."""


@dataclass(frozen=True)
class SeatTest:
    """One SEAT test: targets X (targ1), Y (targ2) and attributes A (attr1), B (attr2), as sentences."""

    name: str
    targ1_category: str
    targ1: tuple[str, ...]
    targ2_category: str
    targ2: tuple[str, ...]
    attr1_category: str
    attr1: tuple[str, ...]
    attr2_category: str
    attr2: tuple[str, ...]
    source: str | None = None

    def sets(self) -> dict[str, tuple[str, ...]]:
        """``{"targ1": X, "targ2": Y, "attr1": A, "attr2": B}``."""
        return {"targ1": self.targ1, "targ2": self.targ2, "attr1": self.attr1, "attr2": self.attr2}

    def categories(self) -> dict[str, str]:
        return {
            "targ1": self.targ1_category,
            "targ2": self.targ2_category,
            "attr1": self.attr1_category,
            "attr2": self.attr2_category,
        }


def _unique(examples: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(examples))


def read_seat(path: str | Path, name: str | None = None) -> SeatTest:
    """Read one sent-bias test file (``sent-weat6.jsonl`` ...); ``name`` defaults to the file stem.

    Raises ``FileNotFoundError`` for a missing file and :class:`SeatFormatError` (a ``ValueError``) naming
    the file and the offending key for malformed content.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"SEAT test file {path} does not exist")
    try:
        with path.open(encoding="utf-8") as handle:
            data = json.load(handle)
    except json.JSONDecodeError as err:
        raise SeatFormatError(f"{path}: not a JSON object in the sent-bias format ({err})") from err
    except UnicodeDecodeError as err:
        raise SeatFormatError(f"{path}: not valid UTF-8 ({err.reason} at byte {err.start})") from None
    if not isinstance(data, dict):
        raise SeatFormatError(f"{path}: expected a JSON object with keys {list(SEAT_SETS)}, got {type(data).__name__}")
    fields: dict[str, Any] = {}
    for key in SEAT_SETS:
        if key not in data:
            raise SeatFormatError(f"{path}: missing key {key!r} (a sent-bias test needs {list(SEAT_SETS)})")
        entry = data[key]
        if not isinstance(entry, dict):
            raise SeatFormatError(f"{path}: {key!r} must be an object with 'category' and 'examples'")
        for sub in ("category", "examples"):
            if sub not in entry:
                raise SeatFormatError(f"{path}: missing key {key!r}.{sub!r}")
        examples = entry["examples"]
        if not isinstance(examples, list) or not all(isinstance(e, str) for e in examples):
            raise SeatFormatError(f"{path}: {key!r}.'examples' must be a list of strings")
        if not examples:
            raise SeatFormatError(f"{path}: {key!r}.'examples' is empty")
        fields[key] = _unique(examples)
        fields[f"{key}_category"] = str(entry["category"])
    return SeatTest(name=name or path.stem, source=str(path), **fields)


def load_seat_tests(tests_dir: str | Path, names: Sequence[str] = PAPER_TESTS) -> list[SeatTest]:
    """Load tests by May et al. name (``"C6b"``, via :data:`SEAT_FILES`) or by sent-bias file stem.

    The returned tests are named as asked (``"C6b"``), with the file path in ``source``.
    """
    tests_dir = Path(tests_dir)
    if not tests_dir.is_dir():
        raise FileNotFoundError(f"{tests_dir}: no such folder of SEAT tests (sent-bias's tests/)")
    out = []
    for name in names:
        out.append(read_seat(seat_test_path(tests_dir, name), name=name))
    return out


def seat_test_path(tests_dir: str | Path, name: str) -> Path:
    """The file of a test given as May et al.'s name (C6b), a file stem (sent-weat6b), the stem
    without sent-bias's ``sent-`` prefix (weat6b, a test of one's own: mytest) or a file name."""
    tests_dir = Path(tests_dir)
    candidates = [SEAT_FILES.get(name, name), f"sent-{name}", name.removesuffix(".jsonl")]
    for stem in candidates:
        if (tests_dir / f"{stem}.jsonl").is_file():
            return tests_dir / f"{stem}.jsonl"
    known = sorted(path.stem for path in tests_dir.glob("*.jsonl"))
    names = [short for short, stem in SEAT_FILES.items() if stem in known]
    shown = ", ".join(names + [stem.removeprefix("sent-") for stem in known if stem not in SEAT_FILES.values()][:20])
    tried = ", ".join(f"{stem}.jsonl" for stem in dict.fromkeys(candidates))
    raise FileNotFoundError(f"{tests_dir}: no SEAT test {name!r} (tried {tried}); tests there: {shown or 'none'}")


# ---------------------------------------------------------------------------------------------------------
# statistics


def _as_matrix(x: Any, what: str) -> np.ndarray:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[0] == 0:
        raise ValueError(f"{what}: expected a non-empty [n, d] embedding matrix, got shape {arr.shape}")
    return arr


def _unit_rows(x: np.ndarray, what: str) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    if np.any(norms == 0) or not np.all(np.isfinite(norms)):
        raise ValueError(f"{what}: zero or non-finite embedding; cosine similarity is undefined")
    return x / norms


def association(W: Any, A: Any, B: Any) -> np.ndarray:
    """``s(w, A, B) = mean_a cos(w, a) - mean_b cos(w, b)`` for every row ``w`` of ``W`` (sent-bias ``s_wAB``)."""
    W = _unit_rows(_as_matrix(W, "W"), "W")
    A = _unit_rows(_as_matrix(A, "A"), "A")
    B = _unit_rows(_as_matrix(B, "B"), "B")
    if not (W.shape[1] == A.shape[1] == B.shape[1]):
        raise ValueError(f"dimension mismatch: W {W.shape}, A {A.shape}, B {B.shape}")
    return (W @ A.T).mean(axis=1) - (W @ B.T).mean(axis=1)


def _effect_size_from_s(s_x: np.ndarray, s_y: np.ndarray) -> float:
    both = np.concatenate([s_x, s_y])
    if both.size < 2:
        return float("nan")
    std = float(np.std(both, ddof=1))
    if std == 0.0:
        return float("nan")
    return float((s_x.mean() - s_y.mean()) / std)


def effect_size(X: Any, Y: Any, A: Any, B: Any) -> float:
    """Cohen's-d style SEAT effect size (sent-bias ``weat.effect_size``; sample std, ``ddof=1``).

    ``nan`` when all ``s(w, A, B)`` over ``X u Y`` are equal (sent-bias would divide by zero).
    """
    return _effect_size_from_s(association(X, A, B), association(Y, A, B))


class PValue(NamedTuple):
    """Result of :func:`p_value`: ``p`` and the ``method`` ("exact", "sampled" or "parametric")."""

    p: float
    method: str


def n_partitions(n: int) -> int:
    """Number of ordered equal-size partitions of a ``2n``-set: ``C(2n, n)``."""
    return math.comb(2 * n, n)


def _count_ge(sums: np.ndarray, observed: float, tol: float) -> int:
    return int(np.count_nonzero(sums >= observed - tol))


def _exact_count(s: np.ndarray, n: int, observed: float, tol: float) -> int:
    """#{n-subsets X_i of range(2n) with sum s[X_i] >= observed}, enumerated in chunks."""
    m = s.size
    rows = max(1, _CHUNK_ELEMENTS // max(n, 1))
    combos = itertools.combinations(range(m), n)
    count = 0
    while True:
        flat = np.fromiter(itertools.chain.from_iterable(itertools.islice(combos, rows)), dtype=np.intp)
        if flat.size == 0:
            break
        idx = flat.reshape(-1, n)
        count += _count_ge(s[idx].sum(axis=1), observed, tol)
    return count


def _random_subset_sums(s: np.ndarray, n: int, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    """``sum(s[X_i])`` for ``n_draws`` independent uniformly random ``n``-subsets ``X_i`` of ``range(2n)``.

    A uniform random subset is the ``n`` smallest of ``2n`` i.i.d. uniform keys (``argpartition``);
    float64 keys make ties (the only source of bias) practically impossible.
    """
    m = s.size
    rows = max(1, _CHUNK_ELEMENTS // m)
    out = np.empty(n_draws, dtype=np.float64)
    for start in range(0, n_draws, rows):
        stop = min(start + rows, n_draws)
        keys = rng.random((stop - start, m))
        idx = np.argpartition(keys, n - 1, axis=1)[:, :n]
        out[start:stop] = s[idx].sum(axis=1)
    return out


def _p_value_from_s(s_x: np.ndarray, s_y: np.ndarray, *, n_samples: int, seed: int | None, parametric: bool) -> PValue:
    n = s_x.size
    if s_y.size != n:
        raise ValueError(f"the permutation test needs |X| == |Y| (as sent-bias); got {n} and {s_y.size}")
    if n == 0:
        raise ValueError("empty target sets")
    if n_samples < 1:
        raise ValueError(f"n_samples must be >= 1, got {n_samples}")
    s = np.concatenate([s_x, s_y])
    total = float(s.sum())
    rng = np.random.default_rng(seed)

    if parametric:
        # sent-bias: statistic sum_X - sum_Y, n_samples random partitions, normal null.
        observed_xy = float(s_x.sum() - s_y.sum())
        sums = _random_subset_sums(s, n, n_samples, rng)
        samples = 2.0 * sums - total  # sum_{X_i} - sum_{Y_i} = 2 sum_{X_i} - C
        from scipy.stats import norm

        std = float(np.std(samples, ddof=1)) if n_samples > 1 else 0.0
        if std == 0.0:
            p = 1.0 if observed_xy <= float(samples.mean()) else 0.0
        else:
            p = float(norm.sf(observed_xy, loc=float(samples.mean()), scale=std))
        return PValue(p, "parametric")

    observed = float(s_x.sum())
    tol = _TIE_RTOL * max(1.0, float(np.abs(s).sum()))
    n_part = n_partitions(n)
    if n_part <= n_samples:
        return PValue(_exact_count(s, n, observed, tol) / n_part, "exact")
    # sent-bias: bias the estimate by one hallucinated positive observation, then n_samples - 1 draws.
    sums = _random_subset_sums(s, n, n_samples - 1, rng)
    return PValue((1 + _count_ge(sums, observed, tol)) / n_samples, "sampled")


def p_value(
    X: Any,
    Y: Any,
    A: Any,
    B: Any,
    *,
    n_samples: int = 100_000,
    seed: int | None = 1111,
    parametric: bool = False,
) -> PValue:
    """One-sided permutation-test p-value of the SEAT statistic (sent-bias ``p_val_permutation_test``).

    ``H0``: X and Y do not differ in association with A vs B; small ``p`` supports X~A, Y~B.  Exact over
    all ``C(2n, n)`` partitions when that is ``<= n_samples``, else sampled (see the module docstring);
    ``parametric=True`` gives sent-bias's normal approximation.  Returns :class:`PValue` ``(p, method)``.
    """
    return _p_value_from_s(
        association(X, A, B), association(Y, A, B), n_samples=n_samples, seed=seed, parametric=parametric
    )


# ---------------------------------------------------------------------------------------------------------
# runner


Encoder = Callable[[list[str]], Any]


def _encode_all(encode: Encoder, sentences: list[str], batch_size: int | None) -> dict[str, np.ndarray]:
    if not sentences:
        return {}
    step = batch_size or len(sentences)
    chunks = []
    for start in range(0, len(sentences), step):
        batch = sentences[start : start + step]
        emb = np.asarray(encode(batch), dtype=np.float64)
        if emb.ndim != 2 or emb.shape[0] != len(batch):
            raise ValueError(f"encoder returned shape {emb.shape} for {len(batch)} sentences; expected [n, d]")
        chunks.append(emb)
    matrix = np.vstack(chunks)
    return dict(zip(sentences, matrix))


def run_seat(
    encode: Encoder,
    tests: Sequence[SeatTest],
    *,
    n_samples: int = 100_000,
    seed: int | None = 1111,
    parametric: bool = False,
    batch_size: int | None = None,
) -> list[dict[str, Any]]:
    """Run SEAT tests with a sentence encoder ``encode(list[str]) -> [n, d]``.

    Every distinct sentence of all tests is encoded once (in batches of ``batch_size``; one call when
    ``None``).  Each test's permutation test uses ``seed + i`` (``i`` its position) so that results do
    not depend on which other tests run.  One row per test: ``test``, the four categories, ``effect_size``,
    ``p_value``, ``method``, ``n_targ1``/``n_targ2``/``n_attr1``/``n_attr2``, ``n_partitions``, ``n_samples``.
    """
    sentences = list(dict.fromkeys(s for test in tests for key in SEAT_SETS for s in test.sets()[key]))
    vectors = _encode_all(encode, sentences, batch_size)
    rows = []
    for i, test in enumerate(tests):
        mats = {key: np.vstack([vectors[s] for s in test.sets()[key]]) for key in SEAT_SETS}
        A, B = mats["attr1"], mats["attr2"]
        s_x = association(mats["targ1"], A, B)
        s_y = association(mats["targ2"], A, B)
        pv = _p_value_from_s(
            s_x, s_y, n_samples=n_samples, seed=None if seed is None else seed + i, parametric=parametric
        )
        cats = test.categories()
        rows.append(
            {
                "test": test.name,
                "targ1": cats["targ1"],
                "targ2": cats["targ2"],
                "attr1": cats["attr1"],
                "attr2": cats["attr2"],
                "effect_size": _effect_size_from_s(s_x, s_y),
                "p_value": pv.p,
                "method": pv.method,
                "n_targ1": len(test.targ1),
                "n_targ2": len(test.targ2),
                "n_attr1": len(test.attr1),
                "n_attr2": len(test.attr2),
                "n_partitions": n_partitions(len(test.targ1)),
                "n_samples": n_samples,
            }
        )
    return rows
