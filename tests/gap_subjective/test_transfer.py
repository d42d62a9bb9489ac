"""Study C §3.2.2 style transfer: number symbols, SentencePiece, the OpenNMT-py config and a real tiny run."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time

import pytest
import yaml

from cdaflow.gap_subjective.pieces import DIGITS, decode_pieces, encode_pieces, number_symbols, train_sentencepiece
from cdaflow.gap_subjective.transfer import OnmtError, TransferSettings, write_onmt_config
from cdaflow.gap_subjective.transfer_training import find_tool, run_onmt, train_transfer, validation_metrics
from cdaflow.gap_subjective.transferer import Transferer

# onmt 3.5.1 imports trigger torch's deprecation of torch.cuda.amp decorators; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore:.*torch.cuda.amp.*:FutureWarning")

# Lines of a real `onmt_train` log (OpenNMT-py 3.5.1, tiny model, two validation rounds).
REAL_LOG = """\
[2026-11-21 11:22:07,560 INFO] Weighted corpora loaded so far:
\t\t\t* corpus_1: 128
[2026-11-21 11:21:59,112 INFO] Validation perplexity: 27.0031
[2026-11-21 11:21:59,112 INFO] Validation accuracy: 12.9288
[2026-11-21 11:22:07,994 INFO] Step 100/  100; acc: 15.9; ppl:  21.3; xent: 3.1; lr: 0.15000; sents:     134; \
bsz:  323/ 503/13; 3038/4724 tok/s;     13 sec;
[2026-11-21 11:22:08,057 INFO] Train perplexity: 25.0926
[2026-11-21 11:22:08,057 INFO] Train accuracy: 14.1976
[2026-11-21 11:22:08,057 INFO] Validation perplexity: 19.7412
[2026-11-21 11:22:08,057 INFO] Validation accuracy: 17.1504
[2026-11-21 11:22:08,058 INFO] Saving checkpoint run/model_step_100.pt
"""


def test_number_symbols_are_digits_then_frequent_numbers():
    texts = ["Born 1875, died 1875.", "In 1990 and 1875 she had 42 cats", "42 of 2004 and 1962, 2004; 1962 A7"]
    # counts: 1875×3, 42×2, 2004×2, 1962×2, 1990×1 (below min_count 2), 7 is a single digit
    assert number_symbols(texts) == [*DIGITS, "1875", "1962", "2004", "42"]
    assert number_symbols(texts, max_symbols=12) == [*DIGITS, "1875", "1962"]
    assert number_symbols(texts, min_count=1) == [*DIGITS, "1875", "1962", "2004", "42", "1990"]
    with pytest.raises(ValueError, match="max_symbols=5"):
        number_symbols(texts, max_symbols=5)


def test_sentencepiece_round_trip_keeps_numbers_whole(tmp_path):
    texts = [f"She moved to the city in {year} and wrote {count} books ." for year in ("1875", "1990", "2004")
             for count in ("3", "12", "40")] * 3
    symbols = number_symbols(texts)
    assert "1875" in symbols and "12" in symbols
    model = train_sentencepiece(texts, tmp_path / "sp", 80, user_defined_symbols=symbols, model_type="bpe")
    sentences = ["He moved to the city in 1875 with 12 books .", "They wrote 31337 books in 2004 ."]
    encoded = encode_pieces(model, sentences)
    pieces = encoded[0].split()
    assert "1875" in pieces and "12" in pieces  # frequent numbers are single pieces
    for piece in " ".join(encoded).split():  # digits are never merged with letters or the word mark
        assert not any(ch.isdigit() for ch in piece) or piece.isdigit(), piece
    assert decode_pieces(model, encoded) == sentences
    # a piece SentencePiece does not know (copied by copy attention) survives decoding
    assert decode_pieces(model, ["\u2581Zoë \u2581moved \u2581in \u2581 1875 \u2581."]) == ["Zoë moved in 1875 ."]
    # no seed, same bytes
    again = train_sentencepiece(texts, tmp_path / "again", 80, user_defined_symbols=symbols, model_type="bpe")
    assert again.read_bytes() == model.read_bytes()
    with pytest.raises(ValueError, match="vocab_size=15"):
        train_sentencepiece(texts, tmp_path / "small", 15, user_defined_symbols=symbols)
    with pytest.raises(FileNotFoundError, match="missing.model"):
        encode_pieces(tmp_path / "missing.model", ["x"])


def test_onmt_config_has_the_papers_options_under_onmt_names(tmp_path):
    paths = {name: tmp_path / name for name in ("train_src", "train_tgt", "valid_src", "valid_tgt")}
    settings = TransferSettings()
    config = yaml.safe_load(write_onmt_config(tmp_path / "cpu.yaml", settings, **paths, save_model="m/model",
                                              vocab="vocab.txt", gpu=False).read_text())
    expected = {"encoder_type": "brnn", "hidden_size": 256, "batch_size": 16, "max_grad_norm": 2.0,
                "share_embeddings": True, "share_vocab": True, "optim": "adagrad", "learning_rate": 0.15,
                "adagrad_accumulator_init": 0.1, "global_attention": "mlp", "copy_attn": True, "src_vocab": "vocab.txt"}
    assert {key: config[key] for key in expected} == expected
    assert config["data"]["corpus_1"] == {"path_src": str(paths["train_src"]), "path_tgt": str(paths["train_tgt"])}
    assert config["data"]["valid"]["path_tgt"] == str(paths["valid_tgt"])
    assert "world_size" not in config and "gpu_ranks" not in config and "n_sample" not in config
    gpu = yaml.safe_load(write_onmt_config(tmp_path / "gpu.yaml", settings, **paths, save_model="m/model",
                                           vocab="vocab.txt", gpu=True).read_text())
    assert (gpu["world_size"], gpu["gpu_ranks"]) == (1, [0])

    # every key is an OpenNMT-py 3.5.1 training option: its own parser accepts the file
    from onmt.opts import train_opts
    from onmt.utils.parse import ArgumentParser

    parser = ArgumentParser()
    train_opts(parser)
    parsed = parser.parse_args(["-config", str(tmp_path / "gpu.yaml")])
    assert (parsed.encoder_type, parsed.copy_attn, parsed.gpu_ranks, parsed.dropout) == ("brnn", True, [0], [0.3])
    capped = write_onmt_config(tmp_path / "capped.yaml", TransferSettings(max_train_length=80), **paths,
                               save_model="m/model", vocab="vocab.txt", gpu=False)
    assert yaml.safe_load(capped.read_text())["data"]["corpus_1"]["transforms"] == ["filtertoolong"]
    assert parser.parse_args(["-config", str(capped)]).src_seq_length == 80


def test_settings_from_config_refuse_unknown_and_bad_values():
    assert TransferSettings.from_config({"hidden_size": 64, "seed": 7}) == TransferSettings(hidden_size=64, seed=7)
    assert TransferSettings.from_config(TransferSettings(layers=1).to_dict()) == TransferSettings(layers=1)
    with pytest.raises(ValueError, match="transfer settings: unknown key.*rnn_size"):
        TransferSettings.from_config({"rnn_size": 256})
    with pytest.raises(ValueError, match="hidden_size=33 must be even"):
        TransferSettings.from_config({"hidden_size": 33})
    with pytest.raises(ValueError, match="transfer settings: batch_size=0 must be a positive integer"):
        TransferSettings(batch_size=0)
    with pytest.raises(ValueError, match="transfer settings: learning_rate='1e-3' must be a number"):
        TransferSettings.from_config({"learning_rate": "1e-3"})  # YAML reads 1e-3 as text
    with pytest.raises(ValueError, match="transfer settings: copy_attn=1 must be true or false"):
        TransferSettings.from_config({"copy_attn": 1})


def test_validation_metrics_reads_the_last_validation_of_a_real_log():
    assert validation_metrics(REAL_LOG) == {"perplexity": 19.7412, "accuracy": 17.1504}
    with pytest.raises(OnmtError, match="Validation perplexity"):
        validation_metrics(REAL_LOG.split("[2026-11-21 11:21:59")[0])


def test_missing_onmt_tool_is_named(monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(OnmtError, match=r"onmt_train not found .*OpenNMT-py==3\.5\.1"):
        find_tool("onmt_train")


def test_failed_onmt_tool_is_reported_with_its_log(tmp_path):
    log = tmp_path / "train.log"
    with pytest.raises(OnmtError) as info:
        run_onmt("onmt_build_vocab", ["-config", tmp_path / "missing.yaml"], log_path=log)
    message = str(info.value)
    assert "onmt_build_vocab failed with exit code" in message and str(log) in message
    assert message.splitlines()[-1] in log.read_text()  # the end of the log is quoted


def test_missing_or_foreign_checkpoint_is_refused(tmp_path):
    import torch

    spm_model = tmp_path / "sp.model"
    spm_model.write_bytes(b"")
    with pytest.raises(FileNotFoundError, match="checkpoint .*missing.pt does not exist"):
        Transferer.from_files(tmp_path / "missing.pt", spm_model)
    with pytest.raises(FileNotFoundError, match="SentencePiece model .*none.model"):
        Transferer.from_files(tmp_path / "missing.pt", tmp_path / "none.model")
    torch.save({"model": {}}, tmp_path / "foreign.pt")
    with pytest.raises(OnmtError, match="foreign.pt is not an OpenNMT-py checkpoint.*no generator, vocab, opt"):
        Transferer.from_files(tmp_path / "foreign.pt", spm_model)
    with pytest.raises(FileNotFoundError, match="transfer.json: no transfer manifest"):
        Transferer.from_model_dir(tmp_path)
    (tmp_path / "transfer.json").write_text(json.dumps({"checkpoint": "onmt/model_step_5.pt"}))
    with pytest.raises(OnmtError, match="transfer.json: field.s. spm_model missing"):
        Transferer.from_model_dir(tmp_path)
    with pytest.raises(FileNotFoundError, match="train_src file"):
        train_transfer(tmp_path / "a", tmp_path / "b", tmp_path / "c", tmp_path / "d", tmp_path / "out",
                       TransferSettings())


# ---------------------------------------------------------------------------------------------
# A real tiny run: ~60 pairs where the target adds "Unfortunately ," (verb "lost") or
# "controversial" (verb "joined"), as in the paper's Table 3.
# ---------------------------------------------------------------------------------------------

NAMES = ["Anna", "Ben", "Clara", "David", "Emma", "Frank", "Grace", "Henry", "Iris", "Jack", "Laura", "Mark",
         "Nina", "Oscar", "Paula", "Rosa", "Sam", "Tina", "Uma", "Victor"]
NOUNS = ["school", "club", "team", "museum", "office"]
YEARS = ["1990", "2004", "1875", "1962"]
UNSEEN_NAMES = ["Xavier", "Quentin"]  # in the SentencePiece text (the paper's Wikipedia), not in the pairs


def tiny_pairs(count: int, seed: int = 0) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    pairs = []
    for _ in range(count):
        name, verb, noun, year = rng.choice(NAMES), rng.choice(["joined", "lost"]), rng.choice(NOUNS), rng.choice(YEARS)
        source = f"{name} {verb} the {noun} in {year} ."
        subjective = f"{name} {verb} the controversial {noun} in {year} ."
        target = f"Unfortunately , {source}" if verb == "lost" else subjective
        pairs.append((source, target))
    return pairs


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    import torch

    torch.set_num_threads(1)
    folder = tmp_path_factory.mktemp("transfer")
    pairs = tiny_pairs(64)
    texts = [text for pair in pairs for text in pair] + [f"{name} is a name ." for name in UNSEEN_NAMES] * 5
    spm_model = train_sentencepiece(texts, folder / "sp", 250, user_defined_symbols=number_symbols(texts),
                                    model_type="bpe")
    sources = encode_pieces(spm_model, [source for source, _ in pairs])
    targets = encode_pieces(spm_model, [target for _, target in pairs])
    for name, lines in (("train.src", sources[:56]), ("train.tgt", targets[:56]), ("valid.src", sources[56:]),
                        ("valid.tgt", targets[56:])):
        (folder / name).write_text("\n".join(lines) + "\n")
    settings = TransferSettings(layers=1, hidden_size=64, word_vec_size=64, dropout=0.0, learning_rate=0.5,
                                train_steps=500, valid_steps=250, save_checkpoint_steps=250, bucket_size=64,
                                report_every=50, seed=4)
    started = time.perf_counter()
    checkpoint = train_transfer(folder / "train.src", folder / "train.tgt", folder / "valid.src",
                                folder / "valid.tgt", folder / "run", settings, threads=1,
                                log_path=folder / "train.log")
    seconds = time.perf_counter() - started
    print(f"tiny transfer model: {settings.train_steps} steps x 16 sentences in {seconds:.1f} s "
          f"({settings.train_steps * 16 / seconds:.0f} sentences/s incl. tool start-up)")
    return {"checkpoint": checkpoint, "spm": spm_model, "log": folder / "train.log", "pairs": pairs}


@pytest.mark.slow
def test_tiny_model_trains_and_transfers_with_copy_attention(tiny_model):
    checkpoint = tiny_model["checkpoint"]
    assert checkpoint.name == "model_step_500.pt" and checkpoint.is_file()
    assert sorted(p.name for p in checkpoint.parent.glob("*.pt")) == ["model_step_500.pt"]  # keep_checkpoint 1
    metrics = validation_metrics(tiny_model["log"].read_text())
    assert 1.0 <= metrics["perplexity"] < 20
    # With the copy-attention statistics fixed (cdaflow.gap_subjective.onmt_train), a model this
    # sure of its tokens predicts most of them: stock OpenNMT-py 3.5.1 logged ~13-17 % here.
    assert metrics["accuracy"] > 50.0

    transferer = Transferer.from_files(checkpoint, tiny_model["spm"], beam_size=1, max_length=40, batch_size=8)
    sources = [source for source, _ in tiny_model["pairs"]] + [
        "Xavier joined the club in 1990 .", "Quentin lost the team in 2004 .", ""]
    started = time.perf_counter()
    outputs = transferer.transfer(sources)
    print(f"greedy transfer: {len(sources) / (time.perf_counter() - started):.0f} sentences/s")
    assert len(outputs) == len(sources) and outputs[-1] == ""
    assert transferer.transfer(sources) == outputs  # deterministic
    assert transferer.transfer(sources[::-1]) == outputs[::-1]  # order preserved, whatever the batches
    # batch size does not change a sentence's output (fix (d): one copy vocabulary per batch)
    one_by_one = Transferer.from_files(checkpoint, tiny_model["spm"], beam_size=1, max_length=40, batch_size=1)
    assert one_by_one.transfer(sources[:20]) == outputs[:20]

    # the style is learnt: the adverb for "lost", the adjective for "joined"
    lost = [out for src, out in zip(sources[:64], outputs) if " lost " in src]
    joined = [out for src, out in zip(sources[:64], outputs) if " joined " in src]
    assert sum(out.startswith("Unfortunately ,") for out in lost) > len(lost) / 2
    assert sum("controversial" in out for out in joined) > len(joined) / 2

    # copy attention: an unseen name is a piece outside the model's vocabulary, so only copying
    # can produce it; at least one of the two comes through whole
    vocabulary = set(transferer.vocabs["tgt"].ids_to_tokens)
    unseen_pieces = encode_pieces(tiny_model["spm"], sources[-3:-1])
    assert all(f"\u2581{name}" in line.split() and f"\u2581{name}" not in vocabulary
               for name, line in zip(UNSEEN_NAMES, unseen_pieces))
    piece_outputs = transferer.transfer_pieces(unseen_pieces)
    assert decode_pieces(tiny_model["spm"], piece_outputs) == outputs[-3:-1]  # transfer = decode ∘ pieces ∘ encode
    assert any(f"\u2581{name}" in output.split() for name, output in zip(UNSEEN_NAMES, piece_outputs))
    assert any(name in output.split() for name, output in zip(UNSEEN_NAMES, outputs[-3:-1]))

    # beam search works with copy attention too; here loaded as the training rule leaves the model
    model_dir = checkpoint.parent.parent
    (model_dir / "transfer.json").write_text(json.dumps({
        "checkpoint": f"run/{checkpoint.name}", "spm_model": "sp.model", "beam_size": 3, "max_length": 40,
        "settings": TransferSettings().to_dict()}))
    beam = Transferer.from_model_dir(model_dir, batch_size=8)
    assert beam.translator.beam_size == 3
    beam_outputs = beam.transfer(sources)
    assert len(beam_outputs) == len(sources) and beam.transfer(sources) == beam_outputs


@pytest.mark.slow
def test_stock_onmt_translate_still_fails_on_our_checkpoint(tiny_model, tmp_path):
    """The reason for the wrapper: if this starts passing, OpenNMT-py fixed failure (a)."""
    source = tmp_path / "src.txt"
    source.write_text(encode_pieces(tiny_model["spm"], ["Anna lost the club in 1990 ."])[0] + "\n")
    result = subprocess.run([find_tool("onmt_translate"), "-model", str(tiny_model["checkpoint"]),
                             "-src", str(source), "-output", str(tmp_path / "out.txt"), "-beam_size", "1"],
                            capture_output=True, text=True, check=False)
    assert result.returncode != 0 and "weights_only" in result.stderr


def test_copy_scores_collapse_with_their_own_sentence():
    """OpenNMT-py 3.5.1 hands collapse_copy_scores batch-first rows viewed time-major; ours re-reads them."""
    import torch
    from pyonmttok import build_vocab_from_tokens

    from cdaflow.gap_subjective.onmt_train import collapse_batch_first

    tgt_vocab = build_vocab_from_tokens(["<unk>", "<blank>", "a", "b"], maximum_size=0, minimum_frequency=1,
                                        special_tokens=[])
    # sentence 0 can copy "a" (extended index 1), sentence 1 can copy "b"
    src_ex_vocab = [build_vocab_from_tokens(["<unk>", tok], maximum_size=0, minimum_frequency=1, special_tokens=[])
                    for tok in ("a", "b")]
    batch = {"src_ex_vocab": src_ex_vocab}
    batch_size, tlen, extended = 2, 3, len(tgt_vocab) + 2
    flat = torch.zeros(batch_size * tlen, extended)  # batch-first rows: sentence 0's 3 steps, then sentence 1's
    flat[:, len(tgt_vocab) + 1] = 1.0  # every step puts its copy mass on its sentence's copyable word
    scores = flat.view(-1, batch_size, extended)  # what LossCompute._unbottle passes on
    collapse_batch_first(scores, batch, tgt_vocab)
    rows = scores.view(-1, extended)
    a, b = tgt_vocab["a"], tgt_vocab["b"]
    assert rows[:tlen, a].tolist() == [1.0] * tlen and rows[:tlen, b].tolist() == [0.0] * tlen
    assert rows[tlen:, b].tolist() == [1.0] * tlen and rows[tlen:, a].tolist() == [0.0] * tlen



def test_copy_scores_collapse_on_the_scores_device():
    """3.5.1's collapse builds its indices on the CPU and fails on a GPU; ours equals it on the CPU and runs
    where the scores are ("meta": a device other than the CPU, as a GPU is, without one)."""
    import torch
    from onmt.modules.copy_generator import collapse_copy_scores as onmt_collapse
    from pyonmttok import build_vocab_from_tokens

    from cdaflow.gap_subjective.onmt_train import collapse_copy_scores

    tgt_vocab = build_vocab_from_tokens(["<unk>", "<blank>", "a", "b", "c"], maximum_size=0, minimum_frequency=1,
                                        special_tokens=[])  # fmt: skip
    src_ex_vocab = [build_vocab_from_tokens(["<unk>", *tokens], maximum_size=0, minimum_frequency=1, special_tokens=[])
                    for tokens in (["a", "zz"], ["c", "b"])]  # fmt: skip
    batch = {"src_ex_vocab": src_ex_vocab}
    scores = torch.rand(4, 2, len(tgt_vocab) + 3, generator=torch.Generator().manual_seed(0))
    for batch_dim, view in ((1, scores), (0, scores.transpose(0, 1).contiguous())):
        expected = onmt_collapse(view.clone(), batch, tgt_vocab, batch_dim=batch_dim)
        assert torch.equal(collapse_copy_scores(view.clone(), batch, tgt_vocab, batch_dim=batch_dim), expected)
    on_device = scores.to("meta")
    with pytest.raises(RuntimeError, match="same device"):
        onmt_collapse(on_device.clone(), batch, tgt_vocab)
    assert collapse_copy_scores(on_device, batch, tgt_vocab).device.type == "meta"

def test_resumable_batches_go_on_where_the_state_was_taken():
    """The iterator position and the Python, numpy and torch random states (dropout's) come back together."""
    import numpy as np
    import torch

    from cdaflow.gap_subjective.onmt_train import ResumableBatches

    def draws() -> tuple:
        return random.random(), float(np.random.rand()), torch.rand(3).tolist()

    counted = ResumableBatches(range(10))
    batches = iter(counted)
    assert [next(batches) for _ in range(4)] == [0, 1, 2, 3]
    state = counted.state()
    assert state["batches"] == 4 and state["shuffle_state"] is None  # a plain iterable has no shuffler
    expected = draws()  # what the training draws next (dropout of the next batch)
    random.seed(99), np.random.seed(99), torch.manual_seed(99)  # a new process, seeded again
    resumed = ResumableBatches(range(10), state)
    batches = iter(resumed)
    assert next(batches) == 4 and draws() == expected  # restored once the skipped batches are replayed
    assert list(batches) == [5, 6, 7, 8, 9] and resumed.yielded == 10


@pytest.mark.slow
def test_identical_trainings_give_identical_model_folders(tiny_model, tmp_path):
    """The config and the checkpoint name their data relative to the folder, and the tools' log (with
    its timings) lives outside it: a second training on the same data gives the same bytes."""
    import torch

    torch.set_num_threads(1)
    first = tiny_model["checkpoint"].parent
    data = first.parent
    settings = TransferSettings(layers=1, hidden_size=64, word_vec_size=64, dropout=0.0, learning_rate=0.5,
                                train_steps=500, valid_steps=250, save_checkpoint_steps=250, bucket_size=64,
                                report_every=50, seed=4)
    again = data / "again"
    train_transfer(data / "train.src", data / "train.tgt", data / "valid.src", data / "valid.tgt", again, settings,
                   threads=1, log_path=tmp_path / "train.log")
    assert sorted(p.name for p in again.iterdir()) == sorted(p.name for p in first.iterdir())
    assert "train.log" not in {p.name for p in again.iterdir()}
    for name in ("config.yaml", "vocab.txt", "model_step_500.pt"):
        assert (again / name).read_bytes() == (first / name).read_bytes(), name
    assert "path_src: ../train.src" in (again / "config.yaml").read_text()


@pytest.mark.slow
def test_a_killed_training_resumes_from_its_last_checkpoint(tiny_model, tmp_path):
    """A job killed (SIGKILL, tools included) after its step-250 checkpoint: the rerun goes on from it with
    OpenNMT-py's -train_from (weights, optimizer, step) and our iterator position and random states, and
    ends at step 500 with the uninterrupted run's weights, bit for bit (CPU, one thread). A checkpoint
    without our state (an older run) still resumes, reading the data from their start again."""
    import os
    import shutil
    import signal
    import zipfile

    import torch

    from cdaflow.gap_subjective.onmt_train import RESUME_KEY
    from cdaflow.gap_subjective.transferer import load_onmt_checkpoint

    data = tiny_model["checkpoint"].parent.parent
    files = [str(data / name) for name in ("train.src", "train.tgt", "valid.src", "valid.tgt")]
    options = dict(layers=1, hidden_size=64, word_vec_size=64, dropout=0.0, learning_rate=0.5, train_steps=500,
                   valid_steps=250, save_checkpoint_steps=250, bucket_size=64, report_every=50, seed=4)
    resume, output = tmp_path / "resume", tmp_path / "model"
    script = (
        "import sys, torch\n"
        "from cdaflow.gap_subjective.transfer import TransferSettings\n"
        "from cdaflow.gap_subjective.transfer_training import train_transfer\n"
        "torch.set_num_threads(1)\n"
        f"train_transfer(*{files!r}, {str(output)!r}, TransferSettings(**{options!r}), threads=1,\n"
        f"               log_path={str(tmp_path / 'killed.log')!r}, resume_dir={str(resume)!r})\n"
    )
    job = subprocess.Popen([sys.executable, "-c", script], start_new_session=True)
    try:
        deadline = time.monotonic() + 300
        step_250 = resume / "model_step_250.pt"
        while not (step_250.exists() and zipfile.is_zipfile(step_250)):
            assert job.poll() is None and time.monotonic() < deadline, "training ended or stalled before step 250"
            time.sleep(0.05)
    finally:
        os.killpg(job.pid, signal.SIGKILL)  # the job and its onmt_train child, as a wall-time kill
        job.wait()
    assert not output.exists() and not (resume / "model_step_500.pt").exists()
    # the same folder as an older run left it: its checkpoint without our state
    old = tmp_path / "old"
    shutil.copytree(resume, old)
    stripped = load_onmt_checkpoint(old / "model_step_250.pt")
    assert stripped["optim"].pop(RESUME_KEY)["batches"] == 250  # one batch a step, no accumulation
    torch.save(stripped, old / "model_step_250.pt")

    torch.set_num_threads(1)
    checkpoint = train_transfer(*files, output, TransferSettings(**options), threads=1,
                                log_path=tmp_path / "resumed.log", resume_dir=resume)
    log = (tmp_path / "resumed.log").read_text()
    assert "Loading checkpoint from model_step_250.pt" in log
    assert "onmt_build_vocab" not in log and "Step 300/  500" in log and "Step 50/  500" not in log
    assert "Resumed after 250 training batches, random states restored" in log
    assert checkpoint == output / "model_step_500.pt"
    assert sorted(p.name for p in output.glob("*.pt")) == ["model_step_500.pt"]  # keep_checkpoint 1
    config = yaml.safe_load((output / "config.yaml").read_text())
    assert (output / config["data"]["corpus_1"]["path_src"]).resolve() == data / "train.src"  # relative to the model
    saved = load_onmt_checkpoint(checkpoint)
    assert saved["optim"]["training_step"] == 501  # onmt's count after step 500, as uninterrupted
    reference = load_onmt_checkpoint(tiny_model["checkpoint"])

    def same_weights(checkpoint: dict) -> bool:
        return all(checkpoint[part].keys() == reference[part].keys()
                   and all(torch.equal(value, reference[part][key]) for key, value in checkpoint[part].items())
                   for part in ("model", "generator"))

    assert saved["model"] and saved["generator"] and same_weights(saved)  # as if never killed
    assert saved["optim"][RESUME_KEY]["batches"] == 500
    assert validation_metrics(log)["accuracy"] > 50

    # the older checkpoint resumes as before: a log line says so, and the weights differ
    older = train_transfer(*files, tmp_path / "old_model", TransferSettings(**options), threads=1,
                           log_path=tmp_path / "old.log", resume_dir=old)
    old_log = (tmp_path / "old.log").read_text()
    assert "Loading checkpoint from model_step_250.pt" in old_log and "Step 300/  500" in old_log
    assert f"model_step_250.pt holds no {RESUME_KEY} state" in old_log and "Resumed after" not in old_log
    older_saved = load_onmt_checkpoint(older)
    assert older_saved["optim"]["training_step"] == 501 and not same_weights(older_saved)
    assert all(torch.isfinite(value).all() for value in older_saved["model"].values())
    # a rerun after the model was written but before the job ended (its folder still there) trains nothing
    again = train_transfer(*files, tmp_path / "again", TransferSettings(**options), threads=1,
                           log_path=tmp_path / "again.log", resume_dir=resume)
    assert not (tmp_path / "again.log").exists()  # no tool ran
    assert (again.parent / "model_step_500.pt").read_bytes() == checkpoint.read_bytes()
