"""The reinflector: attested forms first, the transducer otherwise; training, decoding, saving."""

from __future__ import annotations

import contextlib
import copy
import json
import logging
import os
import random
import shutil
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import TypeAlias

import torch
from torch import Tensor, nn

from cdaflow.io.weights import load_state, load_torch_file
from cdaflow.morph_cda.reinflection.batching import collate, replace_with_unk
from cdaflow.morph_cda.reinflection.lexicon import (
    Features,
    FeaturesLike,
    InflectionExample,
    Key,
    Lexicon,
    Query,
    normalize_features,
)
from cdaflow.morph_cda.reinflection.transducer import CharTransducer, TransducerConfig
from cdaflow.morph_cda.reinflection.vocabulary import CHAR_SPECIALS, FEAT_SPECIALS, CharVocab, feature_symbols
from cdaflow.text.case import match_case

__all__ = ["Reinflector", "ReinflectorLoadError"]

# The package's name, as before the package was split into modules (log lines name it).
log = logging.getLogger(__package__)

_FORMAT_VERSION = 1
_CONFIG_FILE = "config.json"
_WEIGHTS_FILE = "model.pt"
_LEXICON_FILE = "lexicon.tsv"
_REQUIRED_FILES = (_CONFIG_FILE, _WEIGHTS_FILE, _LEXICON_FILE)


class ReinflectorLoadError(ValueError):
    """A saved reinflector directory is incomplete or unreadable."""


LogFn: TypeAlias = Callable[[str], None]


@dataclass
class _TrainInfo:
    """Saved in config.json: only what the data and seed decide (wall time goes to the log)."""

    epochs: int = 0
    best_epoch: int = 0
    best_dev_accuracy: float | None = None
    history: list[dict[str, float]] = field(default_factory=list)


class Reinflector:
    """Lemma + UPOS + features -> form: attested forms first, the transducer otherwise.

    Lemmata and forms are handled lower-cased; :meth:`inflect_like` restores the case of the
    word being replaced. Query features whose names were never seen in training (e.g. Tense
    when trained on Gender/Number/Person) are ignored, matching how the training examples
    were restricted.
    """

    def __init__(
        self,
        model: CharTransducer,
        chars: CharVocab,
        feats: CharVocab,
        lexicon: Lexicon,
        feature_names: Iterable[str],
        *,
        device: str | torch.device = "cpu",
        cache_size: int = 200_000,
        batch_size: int = 256,
        threads: int | None = None,
    ) -> None:
        self.model = model
        self.chars = chars
        self.feats = feats
        self.lexicon = lexicon
        self.feature_names = tuple(sorted(set(feature_names)))
        self.device = torch.device(device)
        self.cache_size = cache_size
        self.batch_size = batch_size
        # torch intra-op threads for decoding; None leaves torch's setting. For these small
        # models 1 is usually fastest, and far faster than 2+ on an oversubscribed CPU.
        self.threads = threads
        self.train_info = _TrainInfo()
        self._cache: OrderedDict[Key, str] = OrderedDict()
        self.model.to(self.device).eval()

    # -- training ---------------------------------------------------------

    @classmethod
    def train(
        cls,
        train_examples: Sequence[InflectionExample],
        dev_examples: Sequence[InflectionExample] | None = None,
        *,
        epochs: int = 30,
        batch_size: int = 32,
        lr: float = 1e-3,
        seed: int = 0,
        device: str | torch.device = "cpu",
        log: LogFn | None = None,
        threads: int | None = None,
        config: TransducerConfig | None = None,
        clip: float = 5.0,
        dedupe: bool = True,
    ) -> Reinflector:
        """Fit the lexicon on all ``train_examples`` and the transducer with Adam.

        The transducer is trained on unique examples (``dedupe``) so frequent function words
        do not dominate; with ``dev_examples`` the weights of the epoch with the best dev
        accuracy are kept. On CPU, a fixed ``seed`` (and thread count) gives identical weights.
        """
        if not train_examples:
            raise ValueError("no training examples")
        emit = log or _log_info
        config = config or TransducerConfig()
        data = sorted(set(train_examples)) if dedupe else list(train_examples)
        chars = CharVocab(
            (char for example in data for text in (example.lemma, example.form) for char in text),
            CHAR_SPECIALS,
        )
        feats = CharVocab(
            (symbol for example in data for symbol in feature_symbols(example.upos, example.features)),
            FEAT_SPECIALS,
        )
        feature_names = {feat.split("=", 1)[0] for example in data for feat in example.features}
        dev = sorted(set(dev_examples)) if dev_examples else []

        with _threads(threads), torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            model = CharTransducer(len(chars), len(feats), config)
            reinflector = cls(
                model,
                chars,
                feats,
                Lexicon.from_examples(train_examples),
                feature_names,
                device=device,
                threads=threads,
            )
            reinflector._fit(data, dev, epochs, batch_size, lr, seed, clip, emit)
        return reinflector

    def _fit(
        self,
        data: list[InflectionExample],
        dev: list[InflectionExample],
        epochs: int,
        batch_size: int,
        lr: float,
        seed: int,
        clip: float,
        emit: LogFn,
    ) -> None:
        model = self.model
        optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        encoded = [self._encode_example(example) for example in data]
        order_rng = random.Random(seed)
        best_state: dict[str, Tensor] | None = None
        info = self.train_info = _TrainInfo()
        started = time.perf_counter()
        for epoch in range(1, epochs + 1):
            model.train()
            order = list(range(len(encoded)))
            order_rng.shuffle(order)
            epoch_rows = [replace_with_unk(row, model.config.unk_replace, order_rng) for row in encoded]
            total_loss = 0.0
            total_chars = 0
            for begin in range(0, len(order), batch_size):
                batch = collate([epoch_rows[i] for i in order[begin : begin + batch_size]]).to(self.device)
                assert batch.tgt is not None and batch.tgt_mask is not None
                nll = model(batch.src, batch.src_mask, batch.feats, batch.tgt, batch.tgt_mask)
                n_chars = int(batch.tgt_mask[:, 1:].sum())
                loss = nll.sum() / n_chars
                optimizer.zero_grad(set_to_none=True)
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), clip)
                optimizer.step()
                total_loss += float(nll.detach().sum())
                total_chars += n_chars
            model.eval()
            entry: dict[str, float] = {"epoch": epoch, "loss": total_loss / max(1, total_chars)}
            message = f"epoch {epoch}/{epochs} loss/char {entry['loss']:.4f}"
            if dev:
                self._cache.clear()
                dev_accuracy = self.accuracy(dev)
                entry["dev_accuracy"] = dev_accuracy
                message += f" dev acc {dev_accuracy:.4f}"
                if info.best_dev_accuracy is None or dev_accuracy > info.best_dev_accuracy:
                    info.best_dev_accuracy = dev_accuracy
                    info.best_epoch = epoch
                    best_state = copy.deepcopy(model.state_dict())
            info.history.append(entry)
            emit(f"{message} ({time.perf_counter() - started:.1f} s)")
        info.epochs = epochs
        if best_state is not None:
            model.load_state_dict(best_state)
            emit(f"kept epoch {info.best_epoch} (dev acc {info.best_dev_accuracy:.4f})")
        else:
            info.best_epoch = epochs
        model.eval()
        self._cache.clear()

    # -- encoding ---------------------------------------------------------

    def _encode_query(self, lemma: str, upos: str, features: Features) -> tuple[list[int], list[int]]:
        src = [CharVocab.BOS, *self.chars.encode(lemma), CharVocab.EOS]
        return src, self.feats.encode(feature_symbols(upos, features))

    def _encode_example(self, example: InflectionExample) -> tuple[list[int], list[int], list[int]]:
        src, feats = self._encode_query(example.lemma, example.upos, example.features)
        return src, feats, [CharVocab.BOS, *self.chars.encode(example.form), CharVocab.EOS]

    def _normalize_query(self, lemma: str, upos: str, features: FeaturesLike) -> Key:
        return (lemma.lower(), upos, normalize_features(features, keep=self.feature_names))

    # -- inference --------------------------------------------------------

    def _neural(self, keys: Sequence[Key]) -> list[str]:
        """Transducer outputs for normalised keys, through the cache."""
        found: dict[Key, str] = {}
        for key in keys:
            if key in self._cache:
                self._cache.move_to_end(key)
                found[key] = self._cache[key]
        missing = sorted(set(keys) - found.keys())
        was_training = self.model.training
        self.model.eval()
        try:
            with _threads(self.threads):
                for begin in range(0, len(missing), self.batch_size):
                    chunk = missing[begin : begin + self.batch_size]
                    found.update(zip(chunk, self._decode(chunk)))
        finally:
            self.model.train(was_training)
        for key in missing:
            self._cache[key] = found[key]
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)
        return [found[key] for key in keys]

    def _decode(self, keys: Sequence[Key]) -> list[str]:
        rows = [self._encode_query(*key) for key in keys]
        batch = collate(rows).to(self.device)
        max_len = max(len(key[0]) for key in keys) + self.model.config.max_extra_len
        ids, positions = self.model.greedy(batch.src, batch.src_mask, batch.feats, max_len)
        forms = []
        for key, row, row_pos in zip(keys, ids, positions):
            lemma = key[0]
            chars = []
            for symbol, position in zip(row, row_pos):
                if symbol == CharVocab.UNK:
                    # Hard attention says which lemma character produced the UNK: copy it.
                    chars.append(lemma[position - 1] if 1 <= position <= len(lemma) else "")
                elif symbol >= len(CHAR_SPECIALS):
                    chars.append(self.chars.symbols[symbol])
            forms.append("".join(chars))
        return forms

    def inflect(self, queries: Sequence[Query], *, use_lexicon: bool = True) -> list[str]:
        """Lower-cased forms for ``(lemma, upos, features)`` queries, decoded in batches."""
        keys = [self._normalize_query(*query) for query in queries]
        results: list[str | None] = [None] * len(keys)
        pending: list[int] = []
        for i, key in enumerate(keys):
            found = self.lexicon.lookup(*key) if use_lexicon else None
            if found is None:
                pending.append(i)
            else:
                results[i] = found
        if pending:
            for i, form in zip(pending, self._neural([keys[i] for i in pending])):
                results[i] = form
        return [form or "" for form in results]

    def inflect_one(self, lemma: str, upos: str, features: FeaturesLike) -> str:
        return self.inflect([(lemma, upos, features)])[0]

    def inflect_like(self, original_form: str, lemma: str, upos: str, features: FeaturesLike) -> str:
        """The new form, with the case pattern of the word it replaces."""
        return match_case(original_form, self.inflect_one(lemma, upos, features))

    def accuracy(self, examples: Sequence[InflectionExample], *, use_lexicon: bool = False) -> float:
        """Exact-match accuracy; the transducer alone unless ``use_lexicon``."""
        if not examples:
            return float("nan")
        predictions = self.inflect([example.key for example in examples], use_lexicon=use_lexicon)
        return sum(p == e.form for p, e in zip(predictions, examples)) / len(examples)

    def clear_cache(self) -> None:
        self._cache.clear()

    # -- persistence ------------------------------------------------------

    def save(self, directory: str | os.PathLike[str]) -> Path:
        """Write weights, config/vocabularies and lexicon; the directory appears atomically."""
        target = Path(directory)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.parent / f".{target.name}.tmp-{uuid.uuid4().hex}"
        tmp.mkdir()
        try:
            config = {
                "format_version": _FORMAT_VERSION,
                "model": asdict(self.model.config),
                "chars": self.chars.items(),
                "feats": self.feats.items(),
                "feature_names": list(self.feature_names),
                "train_info": asdict(self.train_info),
            }
            (tmp / _CONFIG_FILE).write_text(json.dumps(config, ensure_ascii=False, indent=1), encoding="utf-8")
            state = {name: tensor.detach().cpu() for name, tensor in self.model.state_dict().items()}
            torch.save(state, tmp / _WEIGHTS_FILE)
            self.lexicon.write_tsv(tmp / _LEXICON_FILE)
            old = None
            if target.exists():
                old = target.parent / f".{target.name}.old-{uuid.uuid4().hex}"
                os.replace(target, old)
            os.replace(tmp, target)
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return target

    @classmethod
    def load(
        cls, directory: str | os.PathLike[str], device: str | torch.device = "cpu", *, threads: int | None = None
    ) -> Reinflector:
        """Read a directory written by :meth:`save`."""
        path = Path(directory)
        if not path.is_dir():
            raise FileNotFoundError(f"reinflector directory {path} does not exist")
        missing = [name for name in _REQUIRED_FILES if not (path / name).is_file()]
        if missing:
            raise ReinflectorLoadError(f"reinflector directory {path} is incomplete: missing {', '.join(missing)}")
        try:
            config = json.loads((path / _CONFIG_FILE).read_text(encoding="utf-8"))
            if config.get("format_version") != _FORMAT_VERSION:
                raise ValueError(f"unsupported format_version {config.get('format_version')!r}")
            model_config = TransducerConfig(**config["model"])
            chars = CharVocab(config["chars"], CHAR_SPECIALS)
            feats = CharVocab(config["feats"], FEAT_SPECIALS)
            model = CharTransducer(len(chars), len(feats), model_config)
            state = load_torch_file(path / _WEIGHTS_FILE, what="reinflection weights")
            load_state(model, state, path / _WEIGHTS_FILE, what="reinflection weights")
            lexicon = Lexicon.read_tsv(path / _LEXICON_FILE)
            info = config.get("train_info") or {}
        except ValueError as error:  # load_torch_file and load_state name the file themselves
            message = str(error) if str(path) in str(error) else f"cannot load reinflector from {path}: {error}"
            raise ReinflectorLoadError(message) from None
        except (OSError, KeyError, TypeError, RuntimeError) as error:
            raise ReinflectorLoadError(f"cannot load reinflector from {path}: {error!r}") from None
        reinflector = cls(model, chars, feats, lexicon, config["feature_names"], device=device, threads=threads)
        # Folders saved before wall time was left out carry "seconds" keys: dropped here.
        known = {f.name for f in fields(_TrainInfo)}
        info = {key: value for key, value in info.items() if key in known}
        info["history"] = [{k: v for k, v in row.items() if k != "seconds"} for row in info.get("history", [])]
        reinflector.train_info = _TrainInfo(**info)
        return reinflector


def _log_info(message: str) -> None:
    log.info(message)


@contextlib.contextmanager
def _threads(threads: int | None) -> Iterator[None]:
    if threads is None:
        yield
        return
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(previous)
