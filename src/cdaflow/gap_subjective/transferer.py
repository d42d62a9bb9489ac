"""Translation with Pant & Dadu's (2022, §3.2.2) copy-attention transfer model: :class:`Transferer`.

Translation goes through :class:`Transferer`, a wrapper of ours around onmt's Python API,
because ``onmt_translate`` of OpenNMT-py 3.5.1 cannot translate with a copy-attention model on
torch 2.13. Each failure below was reproduced with ``onmt_translate`` on a tiny trained model:

(a) ``onmt.models.model_saver.load_checkpoint`` calls ``torch.load`` without ``weights_only``;
    torch ≥ 2.6 defaults to ``weights_only=True`` and refuses the checkpoint, which pickles an
    ``argparse.Namespace`` (the options) and the vocabularies ("Unsupported global: GLOBAL
    argparse.Namespace"). Fix: :func:`load_onmt_checkpoint` loads with ``weights_only=False``;
    only do this with checkpoints you trained yourself (unpickling runs code).
(b) ``onmt.models.model.NMTModel.load_state_dict`` (called by
    ``onmt.model_builder.load_test_model``) looks a generator parameter up by its bare name
    (``weight``), but a ``CopyGenerator``'s saved keys are ``linear.weight``,
    ``linear_copy.weight``, ... ("ValueError: Missing key in checkpoint:
    generator.linear.weight"). Fix: the model is built with ``onmt.model_builder.build_base_model``
    and loaded with plain ``torch.nn.Module.load_state_dict`` (strict) from the checkpoint's
    ``model`` entries plus its ``generator`` entries prefixed ``generator.``.
(c) ``onmt.inference_engine.InferenceEngine.infer_file`` / ``infer_list`` build the inference
    iterator without ``copy=True``, so batches lack ``src_map`` and
    ``onmt.translate.translator.Translator._translate_batch_with_strategy`` fails with
    ``KeyError: 'src_map'``. Fix: :class:`Transferer` builds its batches itself
    (``onmt.inputters.text_utils.numericalize`` / ``tensorify``) with ``src_map`` and
    ``src_ex_vocab`` added, and calls ``Translator.translate_batch``.
(d) Found while fixing (c): ``onmt.modules.copy_generator.collapse_copy_scores``, called from
    ``Translator._decode_and_generate``, takes the dynamic (per-source) vocabulary of row ``b`` of
    the *still unfinished* sentences from ``batch["src_ex_vocab"][b]``, an index into the *whole*
    batch (3.5.1 dropped the ``batch_offset`` mapping). Once one sentence of a batch finishes,
    the others merge their copy scores with another sentence's vocabulary, so outputs depend on
    batch composition. Fix: every batch gets one dynamic vocabulary shared by all its sentences
    (the union of their pieces), so any row's lookup is right; a sentence's ``src_map`` still
    points only at its own pieces, so it can copy only from itself.

With these fixes greedy search and beam search both work with copy attention (tested).
SentencePiece decoding (:func:`decode_pieces`) keeps pieces the SentencePiece model does not
know, which copy attention can emit (an unseen name copied from the source).
"""

from __future__ import annotations

import logging
import os
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cdaflow.gap_subjective.pieces import decode_pieces, encode_pieces
from cdaflow.gap_subjective.transfer import MANIFEST, OnmtError, TransferSettings
from cdaflow.io.structured import read_mapping
from cdaflow.io.weights import load_torch_file, quiet_libraries

__all__ = ["Transferer", "load_onmt_checkpoint"]

log = logging.getLogger(__name__)


def load_onmt_checkpoint(path: str | os.PathLike[str]) -> dict[str, Any]:
    """An OpenNMT-py checkpoint of ours, unpickled in full (fix (a) of the module docstring).

    ``weights_only=False`` runs pickled code: use it only on checkpoints this workflow trained.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"OpenNMT-py checkpoint {path} does not exist")
    checkpoint = load_torch_file(path, what="OpenNMT-py checkpoint", weights_only=False)
    missing = [key for key in ("model", "generator", "vocab", "opt") if not isinstance(checkpoint, dict)
               or key not in checkpoint]
    if missing:
        raise OnmtError(f"{path} is not an OpenNMT-py checkpoint with weights: no {', '.join(missing)} entry")
    return checkpoint


class Transferer:
    """Objective → subjective transfer with a trained checkpoint, batched, order preserved.

    Build it with :meth:`from_files`; :meth:`transfer` takes raw sentences and returns
    detokenized ones. Decoding is deterministic (no sampling), so CPU runs repeat exactly.
    """

    def __init__(self, model: Any, vocabs: dict[str, Any], translator: Any, spm_model: Path, *,
                 batch_size: int, device: Any, copy_attn: bool) -> None:
        self.model = model
        self.vocabs = vocabs
        self.translator = translator
        self.spm_model = spm_model
        self.batch_size = batch_size
        self.device = device
        self.copy_attn = copy_attn

    @classmethod
    def from_files(cls, checkpoint: str | os.PathLike[str], spm_model: str | os.PathLike[str], *,
                   beam_size: int = 5, max_length: int = 250, batch_size: int = 32,
                   device: str = "cpu") -> Transferer:
        """Load `checkpoint` (trained by :func:`~cdaflow.gap_subjective.transfer_training.train_transfer`)
        and the SentencePiece model."""
        import torch

        with quiet_libraries():  # OpenNMT-py's modules use torch.cuda.amp decorators torch deprecates
            from onmt.inputters.inputter import dict_to_vocabs
            from onmt.model_builder import build_base_model
            from onmt.opts import translate_opts
            from onmt.translate import GNMTGlobalScorer
            from onmt.translate.translator import Translator
            from onmt.utils.parse import ArgumentParser

            from cdaflow.gap_subjective.onmt_train import patch

            patch()  # copy-score merging that also runs on a GPU
        if beam_size < 1 or max_length < 1 or batch_size < 1:
            raise ValueError(f"beam_size, max_length and batch_size must be positive, not "
                             f"{beam_size}, {max_length}, {batch_size}")
        spm_model = Path(spm_model)
        if not spm_model.is_file():
            raise FileNotFoundError(f"SentencePiece model {spm_model} does not exist")
        torch_device = torch.device(device)
        state = load_onmt_checkpoint(checkpoint)

        # What onmt.model_builder.load_test_model does, minus its state-dict loader (fix (b)).
        model_opt = ArgumentParser.ckpt_model_opts(state["opt"])
        ArgumentParser.update_model_opts(model_opt)
        ArgumentParser.validate_model_opts(model_opt)
        model_opt.update_vocab = False
        model_opt.attention_dropout = 0.0
        vocabs = dict_to_vocabs(state["vocab"])
        with quiet_libraries():  # torch's note on dropout with one LSTM layer: the settings are the user's
            model = build_base_model(model_opt, vocabs)
        weights = dict(state["model"])
        weights.update({f"generator.{name}": tensor for name, tensor in state["generator"].items()})
        try:
            torch.nn.Module.load_state_dict(model, weights, strict=True)
        except RuntimeError as error:
            raise OnmtError(f"{checkpoint}: weights do not fit the model its options describe: {error}") from error
        model.to(torch_device)
        model.eval()

        gpu = (torch_device.index or 0) if torch_device.type == "cuda" else -1
        parser = ArgumentParser(description="cdaflow transfer")
        translate_opts(parser)
        opt = parser.parse_args(["-model", str(checkpoint), "-src", "-", "-beam_size", str(beam_size),
                                 "-max_length", str(max_length), "-gpu", str(gpu)])
        translator = Translator.from_opt(model, vocabs, opt, model_opt, global_scorer=GNMTGlobalScorer.from_opt(opt),
                                         out_file=None, report_score=False, logger=log)
        return cls(model, vocabs, translator, spm_model, batch_size=batch_size, device=torch_device,
                   copy_attn=bool(model_opt.copy_attn))

    @classmethod
    def from_model_dir(cls, model_dir: str | os.PathLike[str], *, batch_size: int = 32,
                       device: str = "cpu") -> Transferer:
        """Load the model folder the training rule writes: ``transfer.json`` names the checkpoint and
        SentencePiece model (relative to the folder) and the decoding settings."""

        manifest_path = Path(model_dir) / MANIFEST
        if not manifest_path.is_file():
            raise FileNotFoundError(
                f"{manifest_path}: no transfer manifest (rule gap_subjective_transfer_train writes it)"
            )
        manifest = read_mapping(manifest_path, fmt="json")
        missing = [key for key in ("checkpoint", "spm_model") if not isinstance(manifest.get(key), str)]
        if missing:
            raise OnmtError(f"{manifest_path}: field(s) {', '.join(missing)} missing")
        defaults = TransferSettings()
        return cls.from_files(Path(model_dir) / manifest["checkpoint"], Path(model_dir) / manifest["spm_model"],
                              beam_size=int(manifest.get("beam_size", defaults.beam_size)),
                              max_length=int(manifest.get("max_length", defaults.max_length)),
                              batch_size=batch_size, device=device)

    def _batch(self, lines: Sequence[str]) -> dict[str, Any]:
        """A tensor batch of piece lines with the copy-attention keys (fixes (c) and (d))."""
        from onmt.constants import DefaultTokens
        from onmt.inputters.text_utils import numericalize, tensorify

        examples = []
        for index, line in enumerate(lines):
            example = {"src": {"src": line}, "tgt": None, "srclen": len(line.split(" ")), "cid": "transfer",
                       "cid_line_number": index, "align": None}
            examples.append((numericalize(self.vocabs, example), index))
        if self.copy_attn:
            import pyonmttok

            # One dynamic vocabulary for the whole batch (fix (d)); built from a sorted counter,
            # so it does not depend on sentence order.
            pieces = Counter(piece for line in lines for piece in line.split(" "))
            shared = pyonmttok.build_vocab_from_tokens(
                Counter(dict(sorted(pieces.items()))), maximum_size=0, minimum_frequency=1,
                special_tokens=[DefaultTokens.UNK, DefaultTokens.PAD, DefaultTokens.BOS, DefaultTokens.EOS])
            shared.default_id = shared[DefaultTokens.UNK]
            for example, _ in examples:
                example["src_map"] = shared(example["src"]["src"].split(" "))
                example["src_ex_vocab"] = shared
        return tensorify(self.vocabs, examples, self.device)

    def transfer_pieces(self, lines: Sequence[str]) -> list[str]:
        """Translate space-separated piece lines; returns space-separated piece lines."""
        import torch
        from onmt.translate import TranslationBuilder

        lines = [" ".join(line.split()) for line in lines]
        outputs: list[str] = [""] * len(lines)  # empty lines stay empty
        builder = TranslationBuilder(self.vocabs, n_best=1)
        chunks = self._chunks(lines)
        started, done = time.perf_counter(), 0
        for number, chunk in enumerate(chunks, start=1):
            batch = self._batch([lines[i] for i in chunk])
            with torch.inference_mode():
                results = self.translator.translate_batch(batch, attn_debug=False)
            for translation in builder.from_batch(results):
                outputs[chunk[translation.ind_in_bucket]] = " ".join(translation.pred_sents[0])
            done += len(chunk)
            if number % 50 == 0 or number == len(chunks):
                log.info("transferred %d/%d sentences (%.1f sentences/s)", done, sum(map(len, chunks)),
                         done / max(time.perf_counter() - started, 1e-9))
        return outputs

    def _chunks(self, lines: Sequence[str]) -> list[list[int]]:
        """Indices of non-empty `lines` in batches of at most `batch_size` sentences of one length.

        onmt caps a batch's output length at 1.25 × its padded source length + 5
        (``max_length_ratio``); batches of equal-length sources make that cap each sentence's own,
        so an output does not depend on which sentences share its batch.
        """
        by_length: dict[int, list[int]] = {}
        for index, line in enumerate(lines):
            if line:
                by_length.setdefault(len(line.split(" ")), []).append(index)
        return [indices[start:start + self.batch_size] for _, indices in sorted(by_length.items(), reverse=True)
                for start in range(0, len(indices), self.batch_size)]

    def transfer(self, sentences: Sequence[str]) -> list[str]:
        """Objective sentences in, subjective sentences out, one for one and in order."""
        pieces = self.transfer_pieces(encode_pieces(self.spm_model, sentences))
        return decode_pieces(self.spm_model, pieces)
