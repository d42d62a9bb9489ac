"""The Markov random field of Study A (Zmigrod et al. 2019, §3) and its training (§5).

    Pr(m | T, p) ∝ Π_i φ_i(m_i) Π_{(i→j, ℓ) ∈ T} ψ(m_i, m_j | p_i, p_j, ℓ)

with ψ = exp(m̄_iᵀ W(p_i, p_j, ℓ) m̄_j) over multi-hot subtag vectors m̄ (i the head, j the
dependent). Three ways to get W:

* ``lin``: one free c×c matrix per (head POS, dependent POS, relation) triple; triples never
  seen in training keep W = 0 (ψ = 1: no agreement).
* ``nn``: W = U tanh(V [e(p_i); e(p_j); e(ℓ)]), U ∈ R^{c×c×n1}, V ∈ R^{n1×3n2}, as the
  authors' released code computes it (``nn_link="identity"``). The paper prints
  W = exp(U tanh(…)) (``nn_link="exp"``): every weight is then positive, so an arc that carries
  no agreement (W = 0) is out of reach unless U grows very large; trained that way on the
  Hebrew validation data the model stays at about 2.4× the linear one's NLL and changes no word.
* ``base``: the paper's hard-coded baseline: W rewards equal Gender/Number subtags only on
  the relations named per language (es: adjectives and determiners ↔ nouns; he: adjectives
  and verbs ↔ nouns), with a strength above every log α of the tuning grid.

φ_i is α on the word's observed tag and 1 elsewhere; it is used only at intervention time and
never learned. Relations are UD's universal part (``nsubj:pass`` → ``nsubj``).

With ``arc_frames`` (the project's model; False is the paper's) an arc's type also holds its
frame (:func:`~cdaflow.morph_cda.tree_encoding.arc_frames`): whether the predicate has a copula or a "be" auxiliary
(passives and copulas agree with the subject, *fue elegida*) or another auxiliary (*ha
elegido* does not), whether a dependent clause has a subject of its own, and predicative
complements across a genderless verb hang on the subject (*llegó tarde y estaba cansada*).
The frames are read off the tree the same way for gold UD trees and a parser's.

With ``symmetric_gender`` (the project's model) ψ is the same under swapping Masc and Fem on
both ends: the learned tag prior keeps how common each gender is, while ψ holds agreement
alone. Without it masculine-masculine agreement comes out weaker than feminine-feminine (a
masculine predicate also stands for mixed groups), and interventions toward the masculine
miss predicates the same model changes toward the feminine.
"""

from __future__ import annotations

import copy
import json
import logging
import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import Tensor, nn

from cdaflow.io.atomic import atomic_directory
from cdaflow.io.models import check_settings
from cdaflow.io.structured import read_mapping
from cdaflow.io.weights import load_state, load_torch_file
from cdaflow.morph_cda.bp import ArcTable, TreeBatch, log_partition, map_assign, score
from cdaflow.morph_cda.tags import GENDER_SWAP, TagInventory
from cdaflow.morph_cda.tree_encoding import (
    N_FRAMES,
    N_POS,
    N_REL,
    POS_INDEX,
    Batch,
    EncodedSentence,
)
from cdaflow.text import language as languages

# The hard-coded baseline's relations (controller POS set, target POS set) are the language
# file's `baseline`.
BASELINE_STRENGTH = 20.0  # above every log α in the tuning grid, so the baseline always agrees
PARAMETERIZATIONS = ("lin", "nn", "base")
NN_LINKS = ("identity", "exp")
CARRIER_POS = ("ADJ", "DET", "PRON")

log = logging.getLogger(__name__)


class AgreementMRF(nn.Module):
    """ψ of one language under one parameterization; `edge_potentials` feeds the BP."""

    def __init__(
        self,
        inventory: TagInventory,
        parameterization: str,
        lang: str,
        *,
        n1: int = 9,
        n2: int = 3,
        nn_link: str = "identity",
        tag_prior: bool = False,
        arc_frames: bool = True,
        symmetric_gender: bool = True,
    ) -> None:
        super().__init__()
        if parameterization not in PARAMETERIZATIONS:
            raise ValueError(f"unknown parameterization {parameterization!r}; use one of {PARAMETERIZATIONS}")
        if parameterization == "base":
            languages.load(lang)  # the baseline is the language file's: a clear error if there is none
        self.inventory = inventory
        self.parameterization = parameterization
        self.lang = lang
        if nn_link not in NN_LINKS:
            raise ValueError(f"unknown nn_link {nn_link!r}; use one of {NN_LINKS}")
        self.n1, self.n2, self.nn_link = n1, n2, nn_link
        # Arc types with their frame (FRAMES) on the arc_frames tree; the baseline has no use for it.
        self.arc_frames = arc_frames and parameterization != "base"
        frames = N_FRAMES if self.arc_frames else 1
        # A learned log-prior per (POS, tag), used in training only. Without it the edges must
        # also carry how common each tag is (masculine more than feminine): a word with many
        # arcs then sums that preference over all of them and resists a change its controller
        # asks for. Intervention uses φ (α) alone, as the paper does.
        self.tag_prior = tag_prior and parameterization != "base"
        if self.tag_prior:
            self.prior = nn.Parameter(torch.zeros(N_POS, inventory.size))
        c = len(inventory.subtags)
        self.register_buffer("multi_hot", inventory.multi_hot())
        # ψ(flip h, flip d) = ψ(h, d) (``symmetric_gender``): W averaged with itself under the
        # swap of the Gender=Masc and Gender=Fem subtags
        self.symmetric_gender = symmetric_gender and parameterization != "base"
        position = {sub: i for i, sub in enumerate(inventory.subtags)}
        other = {f"Gender={g}": f"Gender={h}" for g, h in GENDER_SWAP.items()}
        swap = [position.get(other.get(sub, ""), i) for i, sub in enumerate(inventory.subtags)]
        self.register_buffer("gender_swap", torch.tensor(swap, dtype=torch.long), persistent=False)
        if parameterization == "lin":
            self.W = nn.Parameter(torch.zeros(N_POS * N_POS * N_REL * frames, c, c))
        elif parameterization == "nn":
            self.pos_embedding = nn.Embedding(N_POS, n2)
            self.rel_embedding = nn.Embedding(N_REL, n2)
            if self.arc_frames:
                self.frame_embedding = nn.Embedding(N_FRAMES, n2)
            self.V = nn.Linear((4 if self.arc_frames else 3) * n2, n1, bias=False)
            self.U = nn.Parameter(torch.randn(c, c, n1) * 0.1)
        else:
            self.register_buffer("W_base", self._baseline_matrices())

    def _baseline_matrices(self) -> Tensor:
        controllers, targets = languages.load(self.lang).baseline
        c = len(self.inventory.subtags)
        agree = torch.zeros(c, c)
        for i, sub in enumerate(self.inventory.subtags):
            if sub.startswith(("Gender=", "Number=")):
                agree[i, i] = BASELINE_STRENGTH
        W = torch.zeros(N_POS, N_POS, c, c)
        control = [POS_INDEX[p] for p in controllers]
        target = [POS_INDEX[p] for p in targets]
        for a in control:
            for b in target:
                W[a, b] = agree  # noun head, adjective/determiner dependent
                W[b, a] = agree  # and the other way round (copular and relative clauses)
        return W

    def trees(self, batch: Batch) -> TreeBatch:
        """The tree this model reads: UD's, or the arc_frames one (relayed words moved)."""
        return batch.framed_trees if self.arc_frames else batch.trees

    def arc_matrices(self, batch: Batch) -> tuple[Tensor, Tensor]:
        """(W per distinct arc type [U, c, c], index of each arc's type [B, N])."""
        types = batch.framed_type if self.arc_frames else batch.triple
        if self.parameterization == "lin":
            unique, inverse = torch.unique(types, return_inverse=True)
            return self.W.index_select(0, unique), inverse
        if self.parameterization == "base":
            pair = batch.head_pos * N_POS + batch.dep_pos
            unique, inverse = torch.unique(pair, return_inverse=True)
            return self.W_base.view(N_POS * N_POS, *self.W_base.shape[2:]).index_select(0, unique), inverse
        unique, inverse = torch.unique(types, return_inverse=True)
        triple = unique // N_FRAMES if self.arc_frames else unique
        head_pos = triple // (N_POS * N_REL)
        dep_pos = (triple // N_REL) % N_POS
        rel = triple % N_REL
        parts = [self.pos_embedding(head_pos), self.pos_embedding(dep_pos), self.rel_embedding(rel)]
        if self.arc_frames:
            parts.append(self.frame_embedding(unique % N_FRAMES))
        features = torch.cat(parts, dim=-1)
        hidden = torch.tanh(self.V(features))  # [U, n1]
        weights = torch.einsum("cdn,un->ucd", self.U, hidden)
        return (torch.exp(weights) if self.nn_link == "exp" else weights), inverse

    def edge_potentials(self, batch: Batch) -> ArcTable:
        """log ψ per arc type, [U, K, K] indexed [head tag, dependent tag], and each arc's type."""
        W, inverse = self.arc_matrices(batch)
        if self.symmetric_gender:
            # ψ(flip h, flip d) = ψ(h, d): agreement is one relation whichever the gender; the
            # learned prior keeps how common each gender is
            swap = self.gender_swap
            W = 0.5 * (W + W[:, swap][:, :, swap])
        M = self.multi_hot
        per_type = torch.einsum("kc,ucd,ld->ukl", M, W, M)
        return ArcTable(per_type, inverse)

    def nll(self, batch: Batch) -> Tensor:
        """Negative log-likelihood of the observed tags, per sentence [B] (nats)."""
        edge = self.edge_potentials(batch)
        if self.tag_prior:
            unary = self.prior[batch.dep_pos]
        else:
            unary = edge.table.new_zeros(batch.size, batch.trees.max_len, self.inventory.size)
        trees = self.trees(batch)
        return log_partition(unary, edge, trees) - score(batch.tags, unary, edge, trees)

    @torch.no_grad()
    def intervene(
        self,
        batch: Batch,
        fixed: Sequence[Iterable[tuple[int, int]]],
        log_alpha: float,
        *,
        carry_gender: bool = False,
        inherent_gender: Sequence[str] = (),
    ) -> Tensor:
        """MAP tags after fixing some words' tags (0-based word index, new tag id) per sentence.

        Every other word keeps all subtags but gender (the paper's evaluation protocol) and
        gets φ = α on its observed tag.

        With `carry_gender`, a word without a gender subtag passes one on: it takes its tag plus
        the gender its neighbours prefer (φ = α on both), and gets its own tag back in the
        result. In *Este profesor es el mejor* the article hangs on *mejor*, which has no gender
        in UD; without a carrier nothing links *el* to *profesor*.

        Words of a part of speech in `inherent_gender` (nouns: their gender is their own, not
        agreement) and the batch's ``frozen`` words (heads of fixed expressions, *un poco lenta*:
        *un* is part of an adverb; the caller's others) keep their tag unless an intervention
        fixes it. Otherwise a noun linked by a weak arc (*nmod*, *conj*) flips with its whole
        noun phrase once α is low enough for
        the chains of agreement the counterfactual needs (*estaba cansado y contento*).
        """
        edge = self.edge_potentials(batch)
        trees = self.trees(batch)
        b, n, k = batch.size, trees.max_len, self.inventory.size
        device = edge.table.device
        allowed = self.inventory.gender_variants().to(device)
        clamp = allowed[batch.tags]  # [B, N, K]
        unary = torch.zeros(b, n, k, device=device)
        unary.scatter_(2, batch.tags.unsqueeze(-1), log_alpha)
        if carry_gender:
            carriers = self.inventory.gender_carriers().to(device)[batch.tags]  # [B, N, K]
            # Only words of a part of speech that inflects for gender elsewhere (mejor, joven, su):
            # a finite verb or a preposition carrying one let changes leak along whole clauses.
            carrier_pos = torch.tensor([POS_INDEX[p] for p in CARRIER_POS], device=device)
            carriers &= torch.isin(batch.dep_pos.to(device), carrier_pos).unsqueeze(-1)
            # A carrier takes one of the genders, whichever its neighbours prefer: left the choice
            # of its own genderless tag, it keeps it wherever the gender subtag costs a little on
            # its other arcs (*es* ← *mejor*), and *el mejor* stays masculine.
            clamp = torch.where(carriers.any(-1, keepdim=True), carriers, clamp)
            unary.masked_fill_(carriers, log_alpha)
        keep = torch.zeros(b, n, dtype=torch.bool, device=device)
        if inherent_gender:
            inherent = torch.tensor([POS_INDEX[p] for p in inherent_gender], device=device)
            keep |= torch.isin(batch.dep_pos.to(device), inherent)  # [B, N]
        if batch.frozen is not None:  # un poco, a pesar de (an adverb), ha elegido (a perfect)
            keep |= batch.frozen.to(device)
        if keep.any():
            own = torch.nn.functional.one_hot(batch.tags.to(device), k).bool()
            clamp = torch.where(keep.unsqueeze(-1), own, clamp)
        for i, pairs in enumerate(fixed):
            for position, tag in pairs:
                clamp[i, position] = False
                clamp[i, position, tag] = True
        tags, _ = map_assign(unary, edge, trees, clamp)
        if carry_gender:
            carried = carriers.gather(2, tags.clamp(min=0).unsqueeze(-1)).squeeze(-1) & (tags >= 0)
            for i, pairs in enumerate(fixed):
                for position, _ in pairs:
                    carried[i, position] = False
            tags = torch.where(carried, batch.tags.to(device), tags)
        return tags

    # -- persistence -------------------------------------------------------------------
    def config(self) -> dict[str, Any]:
        return {
            "parameterization": self.parameterization,
            "lang": self.lang,
            "n1": self.n1,
            "n2": self.n2,
            "nn_link": self.nn_link,
            "tag_prior": self.tag_prior,
            "arc_frames": self.arc_frames,
            "symmetric_gender": self.symmetric_gender,
        }

    def save(self, directory: Path, extra: dict[str, Any] | None = None) -> None:
        """Write config.json, inventory.json and state.pt into `directory`, atomically."""
        with atomic_directory(directory) as tmp:
            (tmp / "config.json").write_text(json.dumps(self.config() | (extra or {}), indent=1))
            self.inventory.save(tmp / "inventory.json")
            torch.save(self.state_dict(), tmp / "state.pt")

    @classmethod
    def load(cls, directory: Path, device: torch.device | str = "cpu") -> AgreementMRF:
        missing = [
            name for name in ("config.json", "inventory.json", "state.pt") if not (directory / name).is_file()
        ]
        if missing:
            raise FileNotFoundError(f"{directory}: not an MRF model folder (missing {', '.join(missing)})")
        config = check_settings(
            read_mapping(directory / "config.json", fmt="json"),
            directory / "config.json",
            {"parameterization": str, "lang": str, "n1": int, "n2": int},
        )
        try:
            inventory = TagInventory.load(directory / "inventory.json")
        except (ValueError, KeyError, TypeError) as error:
            raise ValueError(f"{directory / 'inventory.json'}: not a tag inventory ({error!r})") from None
        model = cls(
            inventory,
            config["parameterization"],
            config["lang"],
            n1=config["n1"],
            n2=config["n2"],
            # Folders saved before nn_link existed hold the paper's exp link.
            nn_link=config.get("nn_link", "exp"),
            tag_prior=config.get("tag_prior", False),
            arc_frames=config.get("arc_frames", False),
            symmetric_gender=config.get("symmetric_gender", False),
        )
        state = load_torch_file(directory / "state.pt", what="MRF weights", map_location=device)
        load_state(model, state, directory / "state.pt", what="MRF weights")
        return model.to(device)


def make_batches(
    sentences: Sequence[EncodedSentence], batch_size: int, device: torch.device | str = "cpu"
) -> list[Batch]:
    """Batches of sentences of similar length (less padding), in a fixed order."""
    order = sorted(range(len(sentences)), key=lambda i: (len(sentences[i].heads), i))
    return [
        Batch.build([sentences[i] for i in order[start : start + batch_size]], device)
        for start in range(0, len(order), batch_size)
    ]


@dataclass
class TrainingResult:
    epochs: int
    train_bits: list[float]
    dev_bits: list[float]
    seconds: float  # for the log only: see record()
    converged: bool

    def record(self) -> dict[str, Any]:
        """What a saved model keeps of its training: all but the wall time, so identical runs
        write identical model folders."""
        return {
            "epochs": self.epochs,
            "converged": self.converged,
            "train_bits": self.train_bits,
            "dev_bits": self.dev_bits,
        }


def mean_bits(model: AgreementMRF, batches: Sequence[Batch]) -> float:
    """Mean NLL per sentence, in bits."""
    with torch.no_grad():
        total = sum(float(model.nll(b).sum()) for b in batches)
    return total / max(1, sum(b.size for b in batches)) / math.log(2)


def train(
    model: AgreementMRF,
    train_batches: Sequence[Batch],
    dev_batches: Sequence[Batch],
    *,
    lr: float = 0.005,
    weight_decay: float = 1e-4,
    betas: tuple[float, float] = (0.9, 0.999),
    tolerance_bits: float = 1e-5,
    max_epochs: int = 100,
    patience: int = 3,
    seed: int = 0,
    progress: Any = None,
) -> TrainingResult:
    """Adam on the NLL until the dev loss improves by less than `tolerance_bits` (§5).

    The paper stops when "the change in dev-loss was less than 10^-5 bits". With minibatches
    the dev loss jitters around its plateau, so a change is read as an improvement: training
    stops after `patience` epochs in a row that each lower the best dev loss by less than the
    tolerance, and the parameters of the best dev epoch are kept.
    """
    started = time.perf_counter()
    if model.parameterization == "base":
        dev = mean_bits(model, dev_batches)
        return TrainingResult(0, [], [dev], 0.0, True)
    generator = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, betas=betas, weight_decay=weight_decay)
    train_bits: list[float] = []
    dev_bits: list[float] = [mean_bits(model, dev_batches)]
    best_bits, best_state = dev_bits[0], copy.deepcopy(model.state_dict())
    converged = False
    epoch = stalled = 0
    for epoch in range(1, max_epochs + 1):
        total, count = 0.0, 0
        for index in torch.randperm(len(train_batches), generator=generator).tolist():
            batch = train_batches[index]
            optimizer.zero_grad()
            loss = model.nll(batch).sum()
            (loss / batch.size).backward()
            optimizer.step()
            total += float(loss.detach())
            count += batch.size
        train_bits.append(total / max(1, count) / math.log(2))
        dev_bits.append(mean_bits(model, dev_batches))
        if progress:
            progress(epoch, train_bits[-1], dev_bits[-1])
        improvement = best_bits - dev_bits[-1]
        if dev_bits[-1] < best_bits:
            best_bits, best_state = dev_bits[-1], copy.deepcopy(model.state_dict())
        stalled = stalled + 1 if improvement < tolerance_bits else 0
        if stalled >= patience:
            converged = True
            break
    model.load_state_dict(best_state)
    return TrainingResult(epoch, train_bits, dev_bits, time.perf_counter() - started, converged)
