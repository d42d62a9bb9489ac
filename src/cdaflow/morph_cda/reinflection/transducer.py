"""The character transducer with hard non-monotonic attention (Wu, Shapiro & Cotterell 2018)."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from cdaflow.morph_cda.reinflection.vocabulary import CharVocab

__all__ = ["CharTransducer", "TransducerConfig"]


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
