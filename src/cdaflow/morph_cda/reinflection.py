"""Reinflection of lemmata to new morpho-syntactic tags (step 4 of Zmigrod et al. 2019).

After the tags of the agreeing words have been inferred, each changed word is regenerated
from its lemma and its new tag. :class:`Reinflector` first looks the triple
``(lemma, upos, features)`` up in a :class:`Lexicon` of attested forms and otherwise asks a
:class:`CharTransducer`, the character-level transducer with *hard* non-monotonic attention
of Wu, Shapiro & Cotterell (2018): at each output step the decoder computes an attention
distribution over lemma positions and marginalises the output distribution over them,

    p(y_t | y_<t, x) = sum_j  alpha_tj * p(y_t | h_j, s_t),

trained by exact negative log-likelihood.
"""

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
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import TypeAlias

import torch
from torch import Tensor, nn

from cdaflow.io.conllu import Sentence, feats_dict, words

__all__ = [
    "DEFAULT_FEATURES",
    "CharTransducer",
    "CharVocab",
    "InflectionExample",
    "Lexicon",
    "Query",
    "Reinflector",
    "ReinflectorLoadError",
    "TransducerConfig",
    "examples_from_sentences",
    "match_case",
    "normalize_features",
    "split_heldout",
]

log = logging.getLogger(__name__)

DEFAULT_FEATURES: tuple[str, ...] = ("Gender", "Number", "Person")
Features: TypeAlias = tuple[str, ...]
FeaturesLike: TypeAlias = "Mapping[str, str] | Iterable[str]"
Query: TypeAlias = "tuple[str, str, FeaturesLike]"
_Key: TypeAlias = tuple[str, str, Features]

_FORMAT_VERSION = 1
_CONFIG_FILE = "config.json"
_WEIGHTS_FILE = "model.pt"
_LEXICON_FILE = "lexicon.tsv"
_REQUIRED_FILES = (_CONFIG_FILE, _WEIGHTS_FILE, _LEXICON_FILE)


# ---------------------------------------------------------------------------
# examples


@dataclass(frozen=True, order=True)
class InflectionExample:
    """One attested inflection: ``lemma`` + ``upos`` + ``features`` -> ``form``."""

    lemma: str
    upos: str
    features: Features  # sorted "Feat=Value" strings
    form: str

    @property
    def key(self) -> _Key:
        return (self.lemma, self.upos, self.features)


def normalize_features(features: FeaturesLike, keep: Iterable[str] | None = None) -> Features:
    """Sorted ``"Feat=Value"`` tuple from a ``{feat: value}`` mapping or ``"Feat=Value"`` strings.

    With ``keep``, only those feature names are retained.
    """
    if isinstance(features, Mapping):
        items = [f"{name}={value}" for name, value in features.items()]
    elif isinstance(features, str):
        items = [] if features in ("", "_") else features.split("|")
    else:
        items = list(features)
    if keep is not None:
        names = set(keep)
        items = [item for item in items if item.split("=", 1)[0] in names]
    return tuple(sorted(set(items)))


def examples_from_sentences(
    sentences: Iterable[Sentence],
    features: Sequence[str] | None = DEFAULT_FEATURES,
    gendered_only: bool = True,
) -> list[InflectionExample]:
    """One lower-cased example per syntactic word, features restricted to ``features``.

    ``features=None`` keeps the full FEATS of each word.

    Multiword-token ranges, empty nodes, punctuation and words without a lemma are skipped;
    with ``gendered_only``, so are words without a ``Gender`` feature.
    """
    examples: list[InflectionExample] = []
    for sentence in sentences:
        for token in words(sentence):
            lemma = token.get("lemma") or ""
            form = token.get("form") or ""
            upos = token.get("upos") or "_"
            if lemma in ("", "_") or not form or upos == "PUNCT":
                continue
            feats = feats_dict(token)
            if gendered_only and "Gender" not in feats:
                continue
            examples.append(
                InflectionExample(
                    lemma=lemma.lower(),
                    upos=upos,
                    features=normalize_features(feats, keep=features),
                    form=form.lower(),
                )
            )
    return examples


def split_heldout(
    examples: Sequence[InflectionExample], fraction: float = 0.1, seed: int = 0
) -> tuple[list[InflectionExample], list[InflectionExample]]:
    """Split into ``(train, heldout)`` by unique example, so no held-out item is trained on.

    ``train`` keeps every token (duplicates included, so lexicon counts stay meaningful);
    ``heldout`` holds each held-out unique example once, sorted.
    """
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"fraction must be in [0, 1], got {fraction}")
    unique = sorted(set(examples))
    random.Random(seed).shuffle(unique)
    n_heldout = int(round(fraction * len(unique)))
    heldout = set(unique[:n_heldout])
    train = [example for example in examples if example not in heldout]
    return train, sorted(heldout)


def match_case(original: str, new: str) -> str:
    """``new`` with the case pattern of ``original``: ALL CAPS, Capitalised or as is."""
    cased = [char for char in original if char.isupper() or char.islower()]
    if not cased:
        return new
    # A single capital letter ("A") is far more often sentence-initial than an acronym.
    if len(cased) > 1 and all(char.isupper() for char in cased):
        return new.upper()
    if cased[0].isupper():
        for index, char in enumerate(new):
            if char.isupper() or char.islower():
                return new[:index] + char.upper() + new[index + 1 :]
    return new


# ---------------------------------------------------------------------------
# lexicon


class Lexicon:
    """Attested ``(lemma, upos, features)`` -> form counts; lookups return the most frequent form.

    Ties are broken alphabetically so that lookups never depend on insertion order.
    """

    def __init__(self) -> None:
        self._counts: dict[_Key, Counter[str]] = {}
        self._any_pos: dict[tuple[str, Features], Counter[str]] = {}
        self._best: dict[_Key, str] = {}
        self._best_any_pos: dict[tuple[str, Features], str] = {}

    @classmethod
    def from_examples(cls, examples: Iterable[InflectionExample]) -> Lexicon:
        lexicon = cls()
        for example in examples:
            lexicon.add(example.lemma, example.upos, example.features, example.form)
        return lexicon

    def add(self, lemma: str, upos: str, features: FeaturesLike, form: str, count: int = 1) -> None:
        feats = normalize_features(features)
        key = (lemma, upos, feats)
        self._counts.setdefault(key, Counter())[form] += count
        self._any_pos.setdefault((lemma, feats), Counter())[form] += count
        self._best.pop(key, None)
        self._best_any_pos.pop((lemma, feats), None)

    @staticmethod
    def _most_frequent(counts: Counter[str]) -> str:
        return min(counts.items(), key=lambda item: (-item[1], item[0]))[0]

    def lookup(self, lemma: str, upos: str, features: FeaturesLike) -> str | None:
        """The most frequent attested form, or None when the triple was never seen."""
        key = (lemma, upos, normalize_features(features))
        best = self._best.get(key)
        if best is None and key in self._counts:
            best = self._best[key] = self._most_frequent(self._counts[key])
        return best

    def lookup_any_pos(self, lemma: str, features: FeaturesLike) -> str | None:
        """Like :meth:`lookup` but pooling the counts of every part of speech."""
        key = (lemma, normalize_features(features))
        best = self._best_any_pos.get(key)
        if best is None and key in self._any_pos:
            best = self._best_any_pos[key] = self._most_frequent(self._any_pos[key])
        return best

    def __len__(self) -> int:
        return len(self._counts)

    def __contains__(self, key: object) -> bool:
        return key in self._counts

    def entries(self) -> Iterator[tuple[str, str, Features, str, int]]:
        """``(lemma, upos, features, form, count)`` rows in a deterministic order."""
        for key in sorted(self._counts):
            for form, count in sorted(self._counts[key].items()):
                yield (*key, form, count)

    def write_tsv(self, path: str | os.PathLike[str]) -> None:
        with open(path, "w", encoding="utf-8", newline="\n") as stream:
            stream.write("lemma\tupos\tfeatures\tform\tcount\n")
            for lemma, upos, feats, form, count in self.entries():
                stream.write(f"{lemma}\t{upos}\t{'|'.join(feats) or '_'}\t{form}\t{count}\n")

    @classmethod
    def read_tsv(cls, path: str | os.PathLike[str]) -> Lexicon:
        lexicon = cls()
        with open(path, encoding="utf-8", newline="\n") as stream:
            header = stream.readline().rstrip("\n")
            if header != "lemma\tupos\tfeatures\tform\tcount":
                raise ValueError(f"{path}: not a lexicon TSV (header {header!r})")
            for number, line in enumerate(stream, start=2):
                fields = line.rstrip("\n").split("\t")
                if len(fields) != 5:
                    raise ValueError(f"{path}:{number}: expected 5 tab-separated fields")
                lemma, upos, feats, form, count = fields
                lexicon.add(lemma, upos, feats, form, int(count))
        return lexicon


# ---------------------------------------------------------------------------
# vocabularies


class CharVocab:
    """Symbol <-> id map with reserved PAD/UNK(/BOS/EOS) ids at the front."""

    PAD, UNK, BOS, EOS = 0, 1, 2, 3

    def __init__(self, symbols: Iterable[str], specials: Sequence[str]) -> None:
        self.specials = tuple(specials)
        self.symbols: list[str] = list(self.specials) + sorted(set(symbols) - set(self.specials))
        self.index = {symbol: i for i, symbol in enumerate(self.symbols)}

    def __len__(self) -> int:
        return len(self.symbols)

    def encode(self, symbols: Iterable[str]) -> list[int]:
        return [self.index.get(symbol, self.UNK) for symbol in symbols]

    def items(self) -> list[str]:
        """Non-special symbols (what is saved)."""
        return self.symbols[len(self.specials) :]


_CHAR_SPECIALS = ("<pad>", "<unk>", "<s>", "</s>")
_FEAT_SPECIALS = ("<pad>", "<unk>")


def _feature_symbols(upos: str, features: Features) -> list[str]:
    return [*features, f"POS={upos}"]


# ---------------------------------------------------------------------------
# the transducer


@dataclass(frozen=True)
class TransducerConfig:
    """Model sizes; defaults are small enough to train on a laptop CPU."""

    char_dim: int = 64
    feat_dim: int = 64
    hidden: int = 128  # per encoder direction and for the decoder
    attn_hidden: int = 128  # the layer of p(y | h_j, s_t)
    dropout: float = 0.2
    unk_replace: float = 0.03  # training-time chance per lemma character type to become UNK
    max_extra_len: int = 20  # decoding stops after len(lemma) + this many characters


class CharTransducer(nn.Module):
    """Character transducer with hard non-monotonic attention (Wu, Shapiro & Cotterell 2018).

    A BiLSTM encodes the lemma (``<s> c_1 .. c_n </s>``); the summed embedding of the feature
    bag initialises the decoder and is fed to it at every step. The decoder state ``s_t``
    scores each encoder state ``h_j`` (bilinear, masked softmax = ``alpha_tj``) and every
    position emits its own distribution ``p(y | h_j, s_t) = softmax(V tanh(U [h_j; s_t]))``;
    the output distribution is their ``alpha``-weighted mixture, computed in log space.
    """

    def __init__(self, n_chars: int, n_feats: int, config: TransducerConfig) -> None:
        super().__init__()
        self.config = config
        self.n_chars = n_chars
        h = config.hidden
        self.char_embedding = nn.Embedding(n_chars, config.char_dim, padding_idx=CharVocab.PAD)
        self.feat_embedding = nn.Embedding(n_feats, config.feat_dim, padding_idx=CharVocab.PAD)
        self.encoder = nn.LSTM(config.char_dim, h, batch_first=True, bidirectional=True)
        self.init_h = nn.Linear(config.feat_dim + 2 * h, h)
        self.init_c = nn.Linear(config.feat_dim + 2 * h, h)
        self.decoder = nn.LSTM(config.char_dim + config.feat_dim, h, batch_first=True)
        self.attention = nn.Linear(2 * h, h, bias=False)
        self.out_enc = nn.Linear(2 * h, config.attn_hidden)
        self.out_dec = nn.Linear(h, config.attn_hidden, bias=False)
        self.out = nn.Linear(config.attn_hidden, n_chars)
        self.dropout = nn.Dropout(config.dropout)
        # Positions the decoder may never emit.
        banned = torch.zeros(n_chars, dtype=torch.bool)
        banned[[CharVocab.PAD, CharVocab.BOS]] = True
        self.register_buffer("banned", banned, persistent=False)

    def encode(self, src: Tensor, src_mask: Tensor, feats: Tensor) -> tuple[Tensor, Tensor, tuple[Tensor, Tensor]]:
        """Encoder states ``[B, J, 2H]``, feature vector ``[B, F]`` and initial decoder state."""
        lengths = src_mask.sum(1).cpu()
        embedded = self.dropout(self.char_embedding(src))
        packed = nn.utils.rnn.pack_padded_sequence(embedded, lengths, batch_first=True, enforce_sorted=False)
        encoded, _ = self.encoder(packed)
        enc, _ = nn.utils.rnn.pad_packed_sequence(encoded, batch_first=True, total_length=src.size(1))
        enc = self.dropout(enc)
        feat_vec = self.feat_embedding(feats).sum(1)
        mean = (enc * src_mask.unsqueeze(-1)).sum(1) / src_mask.sum(1, keepdim=True)
        summary = torch.cat([feat_vec, mean], dim=-1)
        h0 = torch.tanh(self.init_h(summary)).unsqueeze(0)
        c0 = self.init_c(summary).unsqueeze(0)
        return enc, feat_vec, (h0, c0)

    def _position_log_probs(self, enc: Tensor, src_mask: Tensor, dec: Tensor) -> tuple[Tensor, Tensor]:
        """``log alpha [B, T, J]`` and ``log p(y | h_j, s_t) [B, T, J, V]``."""
        scores = torch.einsum("btd,bjd->btj", dec, self.attention(enc))
        scores = scores.masked_fill(~src_mask.unsqueeze(1), float("-inf"))
        log_alpha = torch.log_softmax(scores, dim=-1)
        hidden = torch.tanh(self.out_enc(enc).unsqueeze(1) + self.out_dec(dec).unsqueeze(2))
        logits = self.out(self.dropout(hidden))
        logits = logits.masked_fill(self.banned, float("-inf"))
        return log_alpha, torch.log_softmax(logits, dim=-1)

    def _decode_inputs(self, prev: Tensor, feat_vec: Tensor) -> Tensor:
        embedded = self.dropout(self.char_embedding(prev))
        return torch.cat([embedded, feat_vec.unsqueeze(1).expand(-1, prev.size(1), -1)], dim=-1)

    def forward(self, src: Tensor, src_mask: Tensor, feats: Tensor, tgt: Tensor, tgt_mask: Tensor) -> Tensor:
        """Per-sequence negative log-likelihood ``[B]`` of ``tgt`` (``<s> y_1 .. y_m </s>``)."""
        enc, feat_vec, state = self.encode(src, src_mask, feats)
        dec, _ = self.decoder(self._decode_inputs(tgt[:, :-1], feat_vec), state)
        log_alpha, log_p = self._position_log_probs(enc, src_mask, dec)
        # Padding targets would pick the banned PAD symbol (-inf) and poison the gradient.
        gold = tgt[:, 1:].masked_fill(~tgt_mask[:, 1:], CharVocab.EOS)
        index = gold[:, :, None, None].expand(-1, -1, log_p.size(2), 1)
        log_p_gold = log_p.gather(3, index).squeeze(3)  # [B, T, J]
        # Exact marginal over positions: log sum_j alpha_tj p(y_t | h_j, s_t).
        log_lik = torch.logsumexp(log_alpha + log_p_gold, dim=-1)
        return -(log_lik * tgt_mask[:, 1:]).sum(1)

    @torch.no_grad()
    def greedy(
        self, src: Tensor, src_mask: Tensor, feats: Tensor, max_len: int
    ) -> tuple[list[list[int]], list[list[int]]]:
        """Greedy decoding: output ids and, per output, the most responsible lemma position."""
        batch = src.size(0)
        enc, feat_vec, state = self.encode(src, src_mask, feats)
        prev = torch.full((batch, 1), CharVocab.BOS, dtype=torch.long, device=src.device)
        done = torch.zeros(batch, dtype=torch.bool, device=src.device)
        outputs: list[Tensor] = []
        sources: list[Tensor] = []
        for _ in range(max_len):
            dec, state = self.decoder(self._decode_inputs(prev, feat_vec), state)
            log_alpha, log_p = self._position_log_probs(enc, src_mask, dec)
            joint = log_alpha[:, 0, :, None] + log_p[:, 0]  # [B, J, V]
            best = torch.logsumexp(joint, dim=1).argmax(-1)  # [B]
            # Posterior over positions given the chosen symbol: where an UNK is copied from.
            position = joint.gather(2, best[:, None, None].expand(-1, joint.size(1), 1)).squeeze(2).argmax(-1)
            best = best.masked_fill(done, CharVocab.PAD)
            outputs.append(best)
            sources.append(position)
            done = done | (best == CharVocab.EOS)
            if bool(done.all()):
                break
            prev = best.unsqueeze(1)
        out = torch.stack(outputs, 1).tolist()
        pos = torch.stack(sources, 1).tolist()
        ids: list[list[int]] = []
        positions: list[list[int]] = []
        for row, row_pos in zip(out, pos):
            end = row.index(CharVocab.EOS) if CharVocab.EOS in row else len(row)
            ids.append(row[:end])
            positions.append(row_pos[:end])
        return ids, positions


# ---------------------------------------------------------------------------
# batching


@dataclass
class _Batch:
    src: Tensor
    src_mask: Tensor
    feats: Tensor
    tgt: Tensor | None
    tgt_mask: Tensor | None

    def to(self, device: torch.device) -> _Batch:
        tensors = (self.src, self.src_mask, self.feats, self.tgt, self.tgt_mask)
        return _Batch(*(None if t is None else t.to(device) for t in tensors))


def _pad(rows: Sequence[Sequence[int]]) -> tuple[Tensor, Tensor]:
    width = max(1, max(len(row) for row in rows))
    data = torch.zeros(len(rows), width, dtype=torch.long)
    for i, row in enumerate(rows):
        data[i, : len(row)] = torch.tensor(row, dtype=torch.long)
    return data, data != CharVocab.PAD


# ---------------------------------------------------------------------------
# the reinflector


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
        self._cache: OrderedDict[_Key, str] = OrderedDict()
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
            _CHAR_SPECIALS,
        )
        feats = CharVocab(
            (symbol for example in data for symbol in _feature_symbols(example.upos, example.features)),
            _FEAT_SPECIALS,
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
            epoch_rows = [_replace_with_unk(row, model.config.unk_replace, order_rng) for row in encoded]
            total_loss = 0.0
            total_chars = 0
            for begin in range(0, len(order), batch_size):
                batch = self._collate([epoch_rows[i] for i in order[begin : begin + batch_size]]).to(self.device)
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
        return src, self.feats.encode(_feature_symbols(upos, features))

    def _encode_example(self, example: InflectionExample) -> tuple[list[int], list[int], list[int]]:
        src, feats = self._encode_query(example.lemma, example.upos, example.features)
        return src, feats, [CharVocab.BOS, *self.chars.encode(example.form), CharVocab.EOS]

    @staticmethod
    def _collate(rows: Sequence[tuple[list[int], ...]]) -> _Batch:
        src, src_mask = _pad([row[0] for row in rows])
        feats, _ = _pad([row[1] for row in rows])
        if len(rows[0]) > 2:
            tgt, tgt_mask = _pad([row[2] for row in rows])
            return _Batch(src, src_mask, feats, tgt, tgt_mask)
        return _Batch(src, src_mask, feats, None, None)

    def _normalize_query(self, lemma: str, upos: str, features: FeaturesLike) -> _Key:
        return (lemma.lower(), upos, normalize_features(features, keep=self.feature_names))

    # -- inference --------------------------------------------------------

    def _neural(self, keys: Sequence[_Key]) -> list[str]:
        """Transducer outputs for normalised keys, through the cache."""
        found: dict[_Key, str] = {}
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

    def _decode(self, keys: Sequence[_Key]) -> list[str]:
        rows = [self._encode_query(*key) for key in keys]
        batch = self._collate(rows).to(self.device)
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
                elif symbol >= len(_CHAR_SPECIALS):
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
            chars = CharVocab(config["chars"], _CHAR_SPECIALS)
            feats = CharVocab(config["feats"], _FEAT_SPECIALS)
            model = CharTransducer(len(chars), len(feats), model_config)
            state = torch.load(path / _WEIGHTS_FILE, map_location="cpu", weights_only=True)
            model.load_state_dict(state)
            lexicon = Lexicon.read_tsv(path / _LEXICON_FILE)
            info = config.get("train_info") or {}
        except (OSError, ValueError, KeyError, TypeError, RuntimeError, json.JSONDecodeError) as error:
            raise ReinflectorLoadError(f"cannot load reinflector from {path}: {error}") from error
        reinflector = cls(model, chars, feats, lexicon, config["feature_names"], device=device, threads=threads)
        # Folders saved before wall time was left out carry "seconds" keys: dropped here.
        known = {f.name for f in fields(_TrainInfo)}
        info = {key: value for key, value in info.items() if key in known}
        info["history"] = [{k: v for k, v in row.items() if k != "seconds"} for row in info.get("history", [])]
        reinflector.train_info = _TrainInfo(**info)
        return reinflector


def _replace_with_unk(
    row: tuple[list[int], list[int], list[int]], rate: float, rng: random.Random
) -> tuple[list[int], list[int], list[int]]:
    """Replace some character types by UNK in lemma and form alike.

    Unseen characters are UNK at test time; this teaches the model to pass an UNK through,
    and decoding then copies the lemma character that the hard attention points at.
    """
    if rate <= 0.0:
        return row
    src, feats, tgt = row
    chosen = {c for c in sorted(set(src[1:-1])) if c >= len(_CHAR_SPECIALS) and rng.random() < rate}
    if not chosen:
        return row
    return (
        [CharVocab.UNK if c in chosen else c for c in src],
        feats,
        [CharVocab.UNK if c in chosen else c for c in tgt],
    )


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
