"""GPU speed-up of each GPU rule family: the project's own code at the paper's model sizes, on one GPU and
on one CPU core of the same machine.

The cluster sizing (``cdaflow.pipeline.cluster``) asks for ``margin x CPU seconds / speed-up`` minutes for a job that
holds a GPU. This measures that speed-up per family instead of assuming one: each family runs its real
code path (the training or inference function its rule calls, with the paper config's settings, which are
the settings classes' defaults) on synthetic input of two sizes, on ``cuda`` and on ``cpu`` with one
thread. The time per item is the slope between the two sizes, so start-up costs (model building, CUDA's
context, a tool's start) cancel; each device runs the small size once more first, untimed, to warm up.

Families (the code; an item; the rules it sizes):

- lstm_lm: ``text.language_model.train_lm`` (512 x 2 LSTM, 16,000 pieces); a sentence of 24 pieces;
  morph_cda_lm, gap_subjective_fluency_lm.
- infersent_train: ``sentence_bias.nli.train_nli`` on ``InferSent.build(hidden=2048)``; an SNLI pair;
  sentence_bias_train_infersent.
- infersent_encode: ``InferSent.encode`` (2 x 2,048); a sentence; sentence_bias_score_snli,
  sentence_bias_evaluate, cross_study_bias_swap.
- roberta_finetune: ``gap_subjective.detector.train_detector`` at roberta-base's sizes (random weights);
  a sentence; gap_subjective_detector.
- roberta_predict: ``Detector.predict_proba`` at roberta-base's sizes; a sentence;
  gap_subjective_subjectivity, gap_subjective_threshold, gap_subjective_benchmark_features,
  sentence_bias_transformer (GPT-2 and BERT-base are of the same size).
- stanza_corpus / stanza_subtitles: stanza's pipeline at its default sizes
  (``stanza_pipeline_cost.build_models``); a UD sentence / a subtitle; corpus_shard,
  cross_study_cda_regender / regender_tag, regender_tag_testset.
- sockeye_train: ``regender.rewriter.train_rewriter`` (Sockeye, the base transformer, 4,096-word
  batches); an update; regender_train.
- onmt_train: ``gap_subjective.transfer_training.train_transfer`` (OpenNMT-py, the paper's settings);
  a training step; gap_subjective_transfer_train.
- onmt_translate: ``Transferer.transfer`` (beam 5, copy attention) with a model of the paper's sizes;
  a sentence; gap_subjective_transfer.

Writes one JSON object per measurement to ``--out`` as it goes (a killed run keeps what it measured) and
prints rows for ``resources/jobs_gpu.tsv``. ``--quick`` shrinks every model (a check of the code paths on
a machine without a GPU: its numbers mean nothing). Families whose packages are missing are skipped with a
line saying so.

    python benchmarks/gpu_speedup.py --out gpu.jsonl [--devices cuda cpu] [--only lstm_lm ...] [--ud DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

WORDS = (
    "the man woman child doctor nurse teacher walks reads writes a an house street city old young "
    "happy tired small large red blue river park book letter friend mother father sister brother "
    "quickly slowly today yesterday always never because while after before with without under"
).split()


def sentences(n: int, length: int = 14, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(length)) + " ." for _ in range(n)]


def sync(device: str) -> None:
    import torch

    if device == "cuda":
        torch.cuda.synchronize()


# --- families: each builds what it needs in `work` and returns a function timing n items ------------------
def lstm_lm(work: Path, device: str, quick: bool) -> Callable[[int], float]:
    import numpy as np

    from cdaflow.text.language_model import LMSettings, train_lm

    settings = LMSettings(epochs=1, **({"embedding": 32, "hidden": 32, "layers": 1} if quick else {}))
    vocab = 500 if quick else 16_000  # the paper config's SentencePiece vocabulary
    rng = np.random.default_rng(0)

    def run(n: int) -> float:
        train = [rng.integers(3, vocab + 3, 24).astype(np.int32) for _ in range(n)]
        start = time.perf_counter()
        train_lm(train, [], vocab, settings, device=device)
        sync(device)
        return time.perf_counter() - start

    return run


def _vectors(words: list[str], dim: int):
    import numpy as np

    from cdaflow.sentence_bias.embeddings import WordVectors

    matrix = np.random.default_rng(0).normal(0, 0.3, (len(words), dim)).astype(np.float32)
    return WordVectors(words, matrix, name="random")


def infersent_train(work: Path, device: str, quick: bool) -> Callable[[int], float]:
    from cdaflow.sentence_bias.infersent import InferSent
    from cdaflow.sentence_bias.nli import LABELS, NLINet, NLIPair, train_nli

    vectors = _vectors(WORDS + [".", "<s>", "</s>"], 300)
    hidden = 32 if quick else 2048  # InferSent's 2 x 2,048

    def run(n: int) -> float:
        premises, hypotheses = sentences(n, 14, seed=1), sentences(n, 8, seed=2)
        pairs = [NLIPair(p, h, LABELS[i % len(LABELS)]) for i, (p, h) in enumerate(zip(premises, hypotheses))]
        model = NLINet(InferSent.build(vectors, hidden, seed=0, device=device), seed=0)
        start = time.perf_counter()
        train_nli(model, pairs, pairs[:64], max_epochs=1, device=device, evaluator=lambda model, dev: 0.0)
        sync(device)
        return time.perf_counter() - start

    return run


def infersent_encode(work: Path, device: str, quick: bool) -> Callable[[int], float]:
    from cdaflow.sentence_bias.infersent import InferSent

    vectors = _vectors(WORDS + [".", "<s>", "</s>"], 300)
    encoder = InferSent.build(vectors, 32 if quick else 2048, seed=0, device=device)

    def run(n: int) -> float:
        texts = sentences(n, 16, seed=3)
        start = time.perf_counter()
        encoder.encode(texts, batch_size=128)
        sync(device)
        return time.perf_counter() - start

    return run


def _roberta_folder(work: Path, quick: bool) -> Path:
    """A roberta-base-sized model (random weights) with a byte-level BPE tokenizer trained here."""
    folder = work / ("roberta-quick" if quick else "roberta-base")
    if folder.is_dir():
        return folder
    from tokenizers import ByteLevelBPETokenizer
    from tokenizers.processors import RobertaProcessing
    from transformers import PreTrainedTokenizerFast, RobertaConfig, RobertaForSequenceClassification

    tokenizer = ByteLevelBPETokenizer()
    tokenizer.train_from_iterator(sentences(2000, seed=9), vocab_size=1000, min_frequency=1, show_progress=False,
                                  special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"])  # fmt: skip
    tokenizer.post_processor = RobertaProcessing(("</s>", tokenizer.token_to_id("</s>")),
                                                 ("<s>", tokenizer.token_to_id("<s>")))  # fmt: skip
    PreTrainedTokenizerFast(tokenizer_object=tokenizer, bos_token="<s>", eos_token="</s>", sep_token="</s>",
                            cls_token="<s>", unk_token="<unk>", pad_token="<pad>",
                            mask_token="<mask>").save_pretrained(folder)  # fmt: skip
    sizes = (
        {"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 64} if quick else {}
    )
    # roberta-base: 12 layers of 768 units, 50,265 pieces (the tokenizer here uses the first 1,000)
    config = RobertaConfig(vocab_size=50_265, max_position_embeddings=514, pad_token_id=1, bos_token_id=0,
                           eos_token_id=2, num_labels=2, **sizes)  # fmt: skip
    RobertaForSequenceClassification(config).save_pretrained(folder)
    return folder


def roberta_finetune(work: Path, device: str, quick: bool) -> Callable[[int], float]:
    from cdaflow.gap_subjective.detector import DetectorSettings, train_detector

    settings = DetectorSettings(model=str(_roberta_folder(work, quick)), epochs=1)

    def run(n: int) -> float:
        texts = sentences(n, 30, seed=4)
        start = time.perf_counter()
        train_detector(texts, [i % 2 for i in range(n)], settings, device=device)
        sync(device)
        return time.perf_counter() - start

    return run


def roberta_predict(work: Path, device: str, quick: bool) -> Callable[[int], float]:
    from cdaflow.gap_subjective.detector import DetectorSettings, train_detector

    settings = DetectorSettings(model=str(_roberta_folder(work, quick)), epochs=1)
    detector = train_detector(sentences(32, 30, seed=5), [0, 1] * 16, settings, device=device)

    def run(n: int) -> float:
        texts = sentences(n, 30, seed=6)
        start = time.perf_counter()
        detector.predict_proba(texts)
        sync(device)
        return time.perf_counter() - start

    return run


def _onmt_data(work: Path, quick: bool) -> tuple[Path, Path]:
    """WNC-like pairs of varied synthetic lines in SentencePiece pieces (8,000, the paper config's); the
    SentencePiece model and the data folder."""
    from cdaflow.gap_subjective.pieces import encode_pieces, train_sentencepiece

    sys.path.insert(0, str(HERE))
    from synthetic_text import synthetic_lines

    data = work / "onmt-data"
    if (data / "valid.tgt").is_file():
        return data / "spm.model", data
    data.mkdir(parents=True, exist_ok=True)
    lines = list(synthetic_lines(4000, seed=7))
    subjective = [f"Sin duda, {line}" for line in lines]
    spm_model = train_sentencepiece(lines + subjective, data / "spm", 500 if quick else 8000)
    for name, chosen in (("train", slice(16, None)), ("valid", slice(0, 16))):
        for side, texts in (("src", lines), ("tgt", subjective)):
            pieces = encode_pieces(spm_model, texts[chosen])
            (data / f"{name}.{side}").write_text("\n".join(pieces) + "\n", encoding="utf-8")
    return spm_model, data


def onmt_train(work: Path, device: str, quick: bool) -> Callable[[int], float]:
    from cdaflow.gap_subjective.transfer import TransferSettings
    from cdaflow.gap_subjective.transfer_training import train_transfer

    _, data = _onmt_data(work, quick)
    quick_sizes = {"hidden_size": 32, "word_vec_size": 32, "layers": 1} if quick else {}
    runs = iter(range(1000))

    def run(steps: int) -> float:
        """Seconds a step, from OpenNMT-py's own reports (tokens a batch / tokens a second), past the first."""
        every = max(1, steps // 10)
        settings = TransferSettings(train_steps=steps, valid_steps=10 * steps, save_checkpoint_steps=steps,
                                    report_every=every, **quick_sizes)  # fmt: skip
        out = work / f"onmt-{device}-{next(runs)}"
        log_path = work / f"{out.name}.log"
        train_transfer(data / "train.src", data / "train.tgt", data / "valid.src", data / "valid.tgt", out,
                       settings, gpu=device == "cuda", threads=1, log_path=log_path)  # fmt: skip
        reports = re.findall(r"bsz:\s*(\d+)/\s*\d+/\s*\d+;\s*(\d+)/\s*\d+ tok/s", log_path.read_text(encoding="utf-8"))
        per_step = sorted(int(tokens) / int(rate) for tokens, rate in reports[1:] if int(rate) > 0)
        if not per_step:
            raise RuntimeError(f"{log_path}: no step reports past the first")
        return per_step[len(per_step) // 2]

    return run


def onmt_translate(work: Path, device: str, quick: bool) -> Callable[[int], float]:
    """Beam search with copy attention (``Transferer.transfer``, beam 5) with a model of the paper's
    sizes trained for a few steps (its output is meaningless, its cost real)."""
    from cdaflow.gap_subjective.transfer import TransferSettings
    from cdaflow.gap_subjective.transfer_training import train_transfer
    from cdaflow.gap_subjective.transferer import Transferer

    spm_model, data = _onmt_data(work, quick)
    quick_sizes = {"hidden_size": 32, "word_vec_size": 32, "layers": 1} if quick else {}
    settings = TransferSettings(train_steps=20, valid_steps=1000, save_checkpoint_steps=20, **quick_sizes)
    checkpoint = train_transfer(data / "train.src", data / "train.tgt", data / "valid.src", data / "valid.tgt",
                                work / f"model-{device}", settings, gpu=device == "cuda", threads=1,
                                log_path=work / f"model-{device}.log")  # fmt: skip
    transferer = Transferer.from_files(checkpoint, spm_model, beam_size=5, max_length=60, device=device)
    sys.path.insert(0, str(HERE))
    from synthetic_text import synthetic_lines

    def run(n: int) -> float:
        texts = list(synthetic_lines(n, seed=11))
        start = time.perf_counter()
        transferer.transfer(texts)
        sync(device)
        return time.perf_counter() - start

    return run


def sockeye_train(work: Path, device: str, quick: bool) -> Callable[[int], float]:
    from cdaflow.regender.rewriter import run_sockeye, train_rewriter

    data = work / "sockeye-data"
    if not data.is_dir():
        rng = random.Random(8)
        raw = work / "sockeye-raw"
        raw.mkdir(exist_ok=True)
        vocab = 300 if quick else 8000
        for name, n in (("train", 20000), ("dev", 64)):
            source = [" ".join(f"w{rng.randrange(vocab)}" for _ in range(rng.randint(6, 14))) for _ in range(n)]
            (raw / f"{name}.src").write_text("\n".join(source) + "\n", encoding="utf-8")
            (raw / f"{name}.trg").write_text("\n".join(s + " w1" for s in source) + "\n", encoding="utf-8")
        run_sockeye(
            "sockeye-prepare-data",
            [
                "--source",
                str(raw / "train.src"),
                "--target",
                str(raw / "train.trg"),
                "--shared-vocab",
                "--max-seq-len",
                "64:64",
                "--output",
                str(data),
            ],
        )
    # The paper config's settings (config schema defaults: the base transformer, 4,096-word batches)
    settings = {
        "num_layers": 6,
        "model_size": 512,
        "attention_heads": 8,
        "ff_size": 2048,
        "batch_size": 4096,
        "batch_type": "word",
        "checkpoint_interval": 1000,
        "max_seq_len": 64,
        "learning_rate": 0.0002,
    }
    if quick:
        settings.update(num_layers=1, model_size=32, attention_heads=2, ff_size=64, batch_size=256)
    # An update of 4,096 words takes about a minute on one core: the CPU runs take batches of a quarter
    # of that and count each update as a quarter (the cost of an update grows linearly with its words).
    share = 4 if device == "cpu" and not quick else 1
    runs = iter(range(1000))

    def run(updates: int) -> float:
        """Seconds an update, from Sockeye's own checkpoint reports (training time only), past the first."""
        out = work / f"sockeye-{device}-{next(runs)}"
        interval = max(1, updates // 3)
        chosen = {**settings, "max_updates": updates, "checkpoint_interval": interval,
                  "batch_size": settings["batch_size"] // share}  # fmt: skip
        log_path = work / f"{out.name}.log"
        train_rewriter(data, work / "sockeye-raw" / "dev.src", work / "sockeye-raw" / "dev.trg", out, chosen,
                       seed=1, use_cpu=device == "cpu", log_path=log_path,
                       env={"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"})  # fmt: skip
        costs = [float(c) for c in re.findall(r"Checkpoint \[\d+\]\s+Updates=\d+ .*?Time-cost=([\d.]+)",
                                               log_path.read_text(encoding="utf-8"))]  # fmt: skip
        if len(costs) < 2:
            raise RuntimeError(f"{log_path}: fewer than two checkpoints")
        return sorted(costs[1:])[len(costs[1:]) // 2] / interval * share

    return run


def stanza_family(kind: str) -> Callable[[Path, str, bool], Callable[[int], float]]:
    def family(work: Path, device: str, quick: bool) -> Callable[[int], float]:
        import stanza

        sys.path.insert(0, str(HERE))
        import stanza_pipeline_cost as cost

        cost.UD = Path(os.environ.get("CDAFLOW_UD_GSD", cost.UD))
        folder = work.parent / "stanza"  # one set of models for both stanza families
        paths_file = work.parent / "stanza-paths.json"
        if not paths_file.is_file():
            paths_file.write_text(json.dumps(cost.build_models(folder)), encoding="utf-8")
        paths = json.loads(paths_file.read_text(encoding="utf-8"))
        nlp = stanza.Pipeline("es", dir=str(folder / "models"), processors="tokenize,mwt,pos,lemma,depparse",
                              download_method=None, use_gpu=device == "cuda", logging_level="WARN",
                              **paths)  # fmt: skip
        if kind == "corpus_sentences":
            texts = [line[len("# text = "):] for line in (cost.UD / "es_gsd-ud-test.conllu").read_text(
                encoding="utf-8").splitlines() if line.startswith("# text = ")]  # fmt: skip
        else:
            texts = [t for t in cost.SUBTITLES.read_text(encoding="utf-8").splitlines() if t.strip()]

        def run(n: int) -> float:
            chosen = (texts * (n // len(texts) + 1))[:n]
            start = time.perf_counter()
            for k in range(0, n, 256):  # the parse rules' batches
                nlp.bulk_process(chosen[k : k + 256])
            sync(device)
            return time.perf_counter() - start

        return run

    return family


@dataclass(frozen=True)
class Family:
    build: Callable[[Path, str, bool], Callable[[int], float]]
    item: str
    rules: list[str]
    cuda_sizes: tuple[int, int]
    cpu_sizes: tuple[int, int]
    self_timed: bool = False
    """A tool run as a child process, timed from its own log: one run of the larger size gives the
    seconds an item (its start-up and first steps left out), no warm-up."""


FAMILIES = {
    "lstm_lm": Family(lstm_lm, "sentence", ["morph_cda_lm", "gap_subjective_fluency_lm"], (640, 6400), (64, 192)),
    "infersent_train": Family(infersent_train, "snli_pair", ["sentence_bias_train_infersent"], (640, 6400), (64, 192)),
    "infersent_encode": Family(
        infersent_encode,
        "sentence",
        ["sentence_bias_score_snli", "sentence_bias_evaluate", "cross_study_bias_swap"],
        (1280, 12800),
        (64, 192),
    ),
    "roberta_finetune": Family(roberta_finetune, "sentence", ["gap_subjective_detector"], (320, 3200), (16, 48)),
    "roberta_predict": Family(
        roberta_predict,
        "sentence",
        [
            "gap_subjective_subjectivity",
            "gap_subjective_threshold",
            "gap_subjective_benchmark_features",
            "sentence_bias_transformer",
        ],
        (1280, 12800),
        (32, 96),
    ),
    "stanza_corpus": Family(
        stanza_family("corpus_sentences"),
        "corpus_sentence",
        ["corpus_shard", "cross_study_cda_regender"],
        (256, 1280),
        (32, 96),
    ),
    "stanza_subtitles": Family(
        stanza_family("regender_candidates"),
        "subtitle",
        ["regender_tag", "regender_tag_testset"],
        (512, 2560),
        (64, 192),
    ),
    "onmt_translate": Family(onmt_translate, "sentence", ["gap_subjective_transfer"], (64, 640), (16, 48)),
    "sockeye_train": Family(sockeye_train, "update", ["regender_train"], (6, 60), (1, 6), self_timed=True),
    "onmt_train": Family(onmt_train, "step", ["gap_subjective_transfer_train"], (20, 500), (10, 60), self_timed=True),
}


def environment() -> dict[str, str]:
    import torch

    found = {"torch": torch.__version__, "cuda": str(torch.version.cuda), "host": platform.node(),
             "cpu": platform.processor() or platform.machine()}  # fmt: skip
    if torch.cuda.is_available():
        found["gpu"] = torch.cuda.get_device_name(0)
    return found


def measure(name: str, device: str, work: Path, quick: bool) -> dict | None:
    family = FAMILIES[name]
    sizes = family.cuda_sizes if device == "cuda" else family.cpu_sizes
    if quick:
        sizes = (max(2, sizes[0] // 8), max(4, sizes[1] // 8))
    (work / name).mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    try:
        run = family.build(work / name, device, quick)
        if family.self_timed:
            small, large = None, run(sizes[1])
        else:
            run(sizes[0])  # warm-up: first-call allocations; on a GPU its context and kernel choice
            small, large = run(sizes[0]), run(sizes[1])
    except ImportError as error:
        print(f"{name} on {device}: skipped ({error})", flush=True)
        return None
    except Exception as error:  # one family's failure must not cost the others' measurements
        print(f"{name} on {device}: failed: {type(error).__name__}: {error}", flush=True)
        return None
    return {"family": name, "device": device, "item": family.item, "rules": family.rules, "sizes": sizes,
            "seconds": [None if small is None else round(small, 4), round(large, 4)],
            "s_per_item": large if small is None else (large - small) / (sizes[1] - sizes[0]),
            "wall_s": round(time.perf_counter() - started, 1)}  # fmt: skip


def report(paths: list[Path]) -> None:
    """The speed-up of each family measured on both devices, as rows for resources/jobs_gpu.tsv."""
    rows = [json.loads(line) for path in paths for line in path.read_text(encoding="utf-8").splitlines() if line]
    by = {(r["family"], r["device"]): r for r in rows}
    print("family\titem\trules\tcpu_s_per_item\tgpu_s_per_item\tspeedup\tgpu\ttorch")
    for name in FAMILIES:
        if (name, "cpu") in by and (name, "cuda") in by:
            cpu, gpu = by[name, "cpu"], by[name, "cuda"]
            print(
                f"{name}\t{cpu['item']}\t{','.join(cpu['rules'])}\t{cpu['s_per_item']:.5f}\t{gpu['s_per_item']:.5f}"
                f"\t{cpu['s_per_item'] / gpu['s_per_item']:.1f}\t{gpu.get('gpu', '?')}\t{gpu['torch']}"
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="JSON lines, one per measurement (appended)")
    parser.add_argument("--devices", nargs="+", default=["cuda", "cpu"], choices=["cuda", "cpu"])
    parser.add_argument("--only", nargs="+", choices=sorted(FAMILIES), help="these families only")
    parser.add_argument("--quick", action="store_true", help="tiny models and sizes: a check of the code paths")
    parser.add_argument("--work", type=Path, help="scratch folder (default: a temporary one)")
    parser.add_argument("--report", nargs="+", type=Path, help="only print the speed-ups measured in these files")
    args = parser.parse_args(argv)
    if args.report:
        report(args.report)
        return 0
    if args.out is None:
        parser.error("--out is required")
    import torch

    if "cuda" in args.devices and not torch.cuda.is_available():
        print("no CUDA device: run with --devices cpu (and --quick) to check the code paths", file=sys.stderr)
        return 2
    torch.set_num_threads(1)  # one CPU core, as the sizing's CPU seconds; the GPU runs' host side too
    env = environment()
    print(json.dumps(env), flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        work = args.work or Path(scratch)
        for name in args.only or FAMILIES:
            for device in args.devices:
                row = measure(name, device, work, args.quick)
                if row is not None:
                    row.update(env)
                    print(json.dumps(row), flush=True)
                    with open(args.out, "a", encoding="utf-8") as handle:
                        handle.write(json.dumps(row) + "\n")
    report([args.out])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
