"""SentEval protocol: loaders and splits on hand-made files, classifiers, relatedness, runner, real data."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
import torch

from cdaflow.sentence_bias.senteval import (
    PAPER_TASKS,
    REGS_INNER_KFOLD,
    REGS_KFOLD,
    REGS_SPLIT,
    STS14_SUBSETS,
    ClassifierSettings,
    TaskDataMissing,
    cv_folds,
    encode_relatedness_labels,
    get_task,
    inner_kfold_eval,
    kfold_eval,
    load_binary,
    load_mrpc,
    load_sick,
    load_sst,
    load_sts14,
    load_stsb,
    load_trec,
    pair_features,
    relatedness_eval,
    resolve_task_folder,
    run_senteval,
    split_eval,
)

torch.set_num_threads(1)


def hashed_bow(dim: int = 256):
    """A cheap deterministic encoder: log(1 + counts) of crc32-hashed lower-cased tokens."""

    def encode(sentences):
        out = np.zeros((len(sentences), dim))
        for i, sentence in enumerate(sentences):
            for token in sentence.lower().split():
                out[i, zlib.crc32(token.encode("utf-8")) % dim] += 1.0
        return np.log1p(out)

    return encode


def _write(path, lines, encoding="utf-8"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding=encoding)
    return path


# --------------------------------------------------------------------------------------------------------
# loaders


def test_binary_loader_keeps_senteval_order_labels_and_empty_lines(tmp_path):
    _write(tmp_path / "MR" / "rt-polarity.pos", ["a  good   film .", "great ; fun", "café crème"], "latin-1")
    _write(tmp_path / "MR" / "rt-polarity.neg", ["bad film", "", "dull"], "latin-1")
    split = load_binary(tmp_path / "MR", "MR")["all"]
    assert split.texts == ["a good film .", "great ; fun", "café crème", "bad film", "", "dull"]
    assert split.labels.tolist() == [1, 1, 1, 0, 0, 0]
    assert split.texts_b is None
    # SUBJ: objective is SentEval's label 1
    _write(tmp_path / "SUBJ" / "subj.objective", ["the film is set in paris ."])
    _write(tmp_path / "SUBJ" / "subj.subjective", ["lovely", "awful"])
    subj = load_binary(tmp_path / "SUBJ", "SUBJ")["all"]
    assert subj.labels.tolist() == [1, 0, 0] and subj.texts[0].startswith("the film")


def test_sst_loaders(tmp_path):
    for split, rows in {
        "train": ["good film \t1", "bad film \t0", "fine\t1"],
        "dev": ["ok\t1", "no\t0"],
        "test": ["yes\t1", "meh\t0"],
    }.items():
        _write(tmp_path / "bin" / f"sentiment-{split}", rows)
    data = load_sst(tmp_path / "bin", 2)
    assert {k: len(v) for k, v in data.items()} == {"train": 3, "dev": 2, "test": 2}
    assert data["train"].texts[0] == "good film" and data["train"].labels.tolist() == [1, 0, 1]
    for split in ("train", "dev", "test"):
        _write(tmp_path / "fine" / f"sentiment-{split}", ["4 a stirring film", "0 a gob of drivel", "2 so-so ."])
    fine = load_sst(tmp_path / "fine", 5)
    assert fine["test"].labels.tolist() == [4, 0, 2] and fine["test"].texts[1] == "a gob of drivel"
    # SentEval asserts max(label) == n_classes - 1
    _write(tmp_path / "fine" / "sentiment-dev", ["3 good", "1 bad"])
    with pytest.raises(ValueError, match="labels go up to 3"):
        load_sst(tmp_path / "fine", 5)


def test_trec_coarse_labels(tmp_path):
    _write(
        tmp_path / "train_5500.label",
        [
            "DESC:manner How did serfdom develop in and then leave Russia ?",
            "ENTY:cremat What films featured the character Popeye Doyle ?",
            "HUM:ind Who was Galileo ?",
            "ABBR:exp What is the full form of .com ?",
            "LOC:city What city is Caf\xe9 du Monde in ?",
            "NUM:dist How far is it from Denver to Aspen ?",
        ],
        "latin-1",
    )
    _write(tmp_path / "TREC_10.label", ["NUM:date When was Ozzy Osbourne born ?", "HUM:desc Who was Galileo ?"])
    data = load_trec(tmp_path)
    assert data["train"].labels.tolist() == [1, 2, 3, 0, 4, 5]  # ABBR 0, DESC 1, ENTY 2, HUM 3, LOC 4, NUM 5
    assert data["train"].texts[0] == "How did serfdom develop in and then leave Russia ?"  # fine label dropped
    assert data["train"].texts[4] == "What city is Café du Monde in ?"
    assert data["test"].labels.tolist() == [5, 3] and len(data["test"]) == 2
    _write(tmp_path / "TREC_10.label", ["WHAT:x Is this ?"])
    with pytest.raises(ValueError, match="COARSE"):
        load_trec(tmp_path)


def test_mrpc_columns(tmp_path):
    header = "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String"
    _write(
        tmp_path / "msr_paraphrase_train.txt",
        [
            header,
            "1\t702876\t702977\tAmrozi accused his brother .\tReferring to him , Amrozi accused his brother .",
            "0\t2108705\t2108831\tYucaipa owned Dominick 's .\tYucaipa bought Dominick 's in 1995 .",
        ],
    )
    _write(tmp_path / "msr_paraphrase_test.txt", [header, "1\t1\t2\tA b .\tA  b ."])
    data = load_mrpc(tmp_path)
    assert len(data["train"]) == 2 and len(data["test"]) == 1
    assert data["train"].labels.tolist() == [1, 0]
    assert data["train"].texts[0] == "Amrozi accused his brother ."
    assert data["train"].texts_b[1] == "Yucaipa bought Dominick 's in 1995 ."
    assert data["test"].texts_b == ["A b ."]
    u, v = np.array([[1.0, -2.0]]), np.array([[3.0, 1.0]])
    np.testing.assert_allclose(pair_features(u, v), [[2.0, 3.0, 3.0, -2.0]])  # [|u-v|, u*v]


SICK_HEADER = "pair_ID\tsentence_A\tsentence_B\trelatedness_score\tentailment_judgment"


def _write_sick(folder, n=(3, 2, 2)):
    rows = [
        "1\tA group of kids is playing\tKids are playing\t4.5\tENTAILMENT",
        "2\tA man is cooking\tNobody is cooking\t3.6\tCONTRADICTION",
        "3\tA dog runs\tA cat sleeps\t1.2\tNEUTRAL",
    ]
    for name, k in zip(("SICK_train.txt", "SICK_trial.txt", "SICK_test_annotated.txt"), n):
        _write(folder / name, [SICK_HEADER] + rows[:k])


def test_sick_columns(tmp_path):
    _write_sick(tmp_path)
    ent = load_sick(tmp_path, "entailment")
    assert {k: len(v) for k, v in ent.items()} == {"train": 3, "dev": 2, "test": 2}
    assert ent["train"].labels.tolist() == [2, 0, 1]  # CONTRADICTION 0, NEUTRAL 1, ENTAILMENT 2
    assert ent["train"].texts[0] == "A group of kids is playing" and ent["train"].texts_b[0] == "Kids are playing"
    rel = load_sick(tmp_path, "relatedness")
    np.testing.assert_allclose(rel["train"].labels, [4.5, 3.6, 1.2])


def test_stsb_and_sts14(tmp_path):
    rows = [
        "main-captions\tMSRvid\t2012test\t0001\t5.000\tA plane is taking off.\tAn air plane is taking off.",
        "main-news\theadlines\t2015\t0002\t0.500\tA man plays.\tStocks fell.\textra\tcolumns",
    ]
    for split in ("train", "dev", "test"):
        _write(tmp_path / "STSB" / f"sts-{split}.csv", rows)
    data = load_stsb(tmp_path / "STSB")
    np.testing.assert_allclose(data["train"].labels, [5.0, 0.5])
    assert data["dev"].texts == ["A plane is taking off.", "A man plays."]
    assert data["test"].texts_b[1] == "Stocks fell."

    for subset in STS14_SUBSETS:
        _write(tmp_path / "STS14" / f"STS.input.{subset}.txt", ["a b\ta b", "c d\tc e", "x\ty"])
        _write(tmp_path / "STS14" / f"STS.gs.{subset}.txt", ["5", "", "0.4"])  # empty gold score: dropped
    sts = load_sts14(tmp_path / "STS14")
    assert list(sts) == list(STS14_SUBSETS)
    assert all(len(split) == 2 for split in sts.values())
    np.testing.assert_allclose(sts["images"].labels, [5.0, 0.4])
    assert sts["OnWN"].texts_b == ["a b", "y"]


def test_missing_data_names_expected_files(tmp_path):
    loaders = [
        (lambda f: load_binary(f, "CR"), "custrev.pos"),
        (lambda f: load_sst(f, 5), "sentiment-train"),
        (load_trec, "TREC_10.label"),
        (load_mrpc, "msr_paraphrase_test.txt"),
        (lambda f: load_sick(f, "relatedness"), "SICK_trial.txt"),
        (load_stsb, "sts-dev.csv"),
        (load_sts14, "STS.gs.tweet-news.txt"),
    ]
    for loader, expected in loaders:
        with pytest.raises(TaskDataMissing, match=expected) as info:
            loader(tmp_path / "nowhere")
        assert str(tmp_path / "nowhere") in str(info.value)
        assert isinstance(info.value, FileNotFoundError)
    # partially present: only the missing file is listed as missing
    _write(tmp_path / "CR" / "custrev.pos", ["good"])
    with pytest.raises(TaskDataMissing, match=r"missing: custrev\.neg\)") as info:
        load_binary(tmp_path / "CR", "CR")
    assert info.value.missing == ("custrev.neg",) and info.value.task == "CR"


def test_task_registry_and_folders(tmp_path):
    assert len(PAPER_TASKS) == 12
    assert get_task("SICK-E").name == "SICKEntailment" and get_task("SST-2").name == "SST2"
    assert get_task("STS-B").name == "STSBenchmark"
    with pytest.raises(ValueError, match="unknown SentEval task"):
        get_task("SNLI-X")
    # SentEval names the SST folders binary/fine; the shared sample Binary/Fine-Grained; also <root>/downstream
    assert resolve_task_folder(tmp_path, "SST2") == tmp_path / "SST" / "binary"
    (tmp_path / "downstream" / "SST" / "Fine-Grained").mkdir(parents=True)
    assert resolve_task_folder(tmp_path, "SST5") == tmp_path / "downstream" / "SST" / "Fine-Grained"


# --------------------------------------------------------------------------------------------------------
# classifiers


def test_cv_folds_are_stratified_partitions():
    y = np.array([1] * 25 + [0] * 15)
    folds = cv_folds(np.zeros((40, 1)), y, kfold=5, seed=1111)
    assert len(folds) == 5
    tested = np.concatenate([test for _, test in folds])
    assert sorted(tested.tolist()) == list(range(40))  # every sample tested exactly once
    for train, test in folds:
        assert len(test) == 8 and len(train) == 32 and not set(train) & set(test)
        assert (y[test] == 1).sum() == 5 and (y[test] == 0).sum() == 3  # stratified
    again = cv_folds(np.zeros((40, 1)), y, kfold=5, seed=1111)
    assert all((a[1] == b[1]).all() for a, b in zip(folds, again))  # fixed seed -> same folds


def test_c_grids_are_senteval_sklearn_grids():
    assert REGS_INNER_KFOLD == (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)
    assert REGS_SPLIT == REGS_INNER_KFOLD
    assert REGS_KFOLD == (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)


def _blobs(n, n_classes, dim=6, seed=0, sep=3.0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % n_classes
    centers = rng.standard_normal((n_classes, dim)) * sep
    return centers[y] + rng.standard_normal((n, dim)), y


def test_inner_kfold_eval_counts_and_accuracy():
    X, y = _blobs(60, 2)
    res = inner_kfold_eval(X, y, kfold=4, seed=1)
    assert res["fold_sizes"] == [15, 15, 15, 15]
    assert len(res["C"]) == 4 and set(res["C"]) <= set(REGS_INNER_KFOLD)
    assert res["acc"] > 90 and res["devacc"] > 90
    assert inner_kfold_eval(X, y, kfold=4, seed=1) == res  # deterministic


def test_kfold_and_split_eval_multiclass():
    X, y = _blobs(120, 6, seed=2)
    Xte, yte = _blobs(30, 6, seed=2)  # same centres (same seed), fresh noise in effect
    res = kfold_eval(X, y, Xte, yte, kfold=3, seed=1111)
    assert res["fold_sizes"] == [40, 40, 40] and res["C"] in REGS_KFOLD
    assert res["acc"] > 80 and len(res["yhat"]) == 30
    res2 = split_eval(X[:80], y[:80], X[80:], y[80:], Xte, yte, seed=1111)
    assert res2["C"] in REGS_SPLIT and res2["acc"] > 80
    lbfgs = ClassifierSettings(usepytorch=False, solver="lbfgs")
    lb = split_eval(X[:80], y[:80], X[80:], y[80:], Xte, yte, classifier=lbfgs)
    assert lb["acc"] > 80


# --------------------------------------------------------------------------------------------------------
# relatedness


def test_relatedness_label_encoding():
    Y = encode_relatedness_labels([3.6, 1.0, 5.0, 4.5, 0.5])
    np.testing.assert_allclose(Y[0], [0, 0, 0.4, 0.6, 0], atol=1e-6)
    np.testing.assert_allclose(Y[1], [1, 0, 0, 0, 0])
    np.testing.assert_allclose(Y[2], [0, 0, 0, 0, 1])
    np.testing.assert_allclose(Y[:4] @ np.arange(1, 6), [3.6, 1.0, 5.0, 4.5], atol=1e-6)  # E[p] = y on [1, 5]
    # STS-B scores below 1 (SentEval issue #83): only mass y on class 1
    np.testing.assert_allclose(Y[4], [0.5, 0, 0, 0, 0])


def test_relatedness_eval_learns_a_linear_score():
    rng = np.random.default_rng(0)
    w = rng.standard_normal(8)

    def make(n):
        X = rng.standard_normal((n, 8))
        return X, 1 + 4 / (1 + np.exp(-(X @ w)))

    (Xtr, ytr), (Xdev, ydev), (Xte, yte) = make(300), make(100), make(100)
    res = relatedness_eval(Xtr, ytr, Xdev, ydev, Xte, yte, seed=1111, max_epoch=150)
    assert res["pearson"] > 0.9 and res["spearman"] > 0.9 and res["devpearson"] > 0.9
    assert res["epochs"] <= 200 and res["yhat"].min() >= 1 and res["yhat"].max() <= 5
    again = relatedness_eval(Xtr, ytr, Xdev, ydev, Xte, yte, seed=1111, max_epoch=150)
    assert again["pearson"] == res["pearson"]  # seeded


# --------------------------------------------------------------------------------------------------------
# runner


def _synthetic_root(root):
    """Every paper task, tiny and learnable by a bag of words ("good"/"bad", "alpha".., shared words)."""
    rng = np.random.default_rng(0)
    filler = ["the", "a", "film", "of", "is", "it", "this", "story", "and", "very"]

    def sent(word, k=4):
        return " ".join(list(rng.choice(filler, size=k)) + [word])

    for task, (one, zero) in {
        "MR": ("rt-polarity.pos", "rt-polarity.neg"),
        "CR": ("custrev.pos", "custrev.neg"),
        "SUBJ": ("subj.objective", "subj.subjective"),
        "MPQA": ("mpqa.pos", "mpqa.neg"),
    }.items():
        _write(root / task / one, [sent("good") for _ in range(30)], "latin-1")
        _write(root / task / zero, [sent("bad") for _ in range(30)], "latin-1")
    for split, n in (("train", 60), ("dev", 20), ("test", 20)):
        _write(
            root / "SST" / "binary" / f"sentiment-{split}",
            [f"{sent(w)}\t{lab}" for lab, w in ((i % 2, ("bad", "good")[i % 2]) for i in range(n))],
        )
        _write(
            root / "SST" / "fine" / f"sentiment-{split}",
            [f"{i % 5} {sent(('awful', 'bad', 'ok', 'good', 'great')[i % 5])}" for i in range(n)],
        )
    coarse = ["ABBR", "DESC", "ENTY", "HUM", "LOC", "NUM"]
    cue = ["abbreviation", "describe", "thing", "who", "where", "howmany"]
    _write(root / "TREC" / "train_5500.label", [f"{coarse[i % 6]}:x {sent(cue[i % 6])} ?" for i in range(72)])
    _write(root / "TREC" / "TREC_10.label", [f"{coarse[i % 6]}:x {sent(cue[i % 6])} ?" for i in range(24)])

    def pair(i):
        a = sent("apple") + f" w{i}"
        return (a, a) if i % 2 else (a, sent("zebra") + f" v{i}")

    header = "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String"
    for split, n in (("train", 40), ("test", 20)):
        _write(
            root / "MRPC" / f"msr_paraphrase_{split}.txt",
            [header] + [f"{i % 2}\t{i}\t{i}\t{pair(i)[0]}\t{pair(i)[1]}" for i in range(n)],
        )
    labels = ["CONTRADICTION", "ENTAILMENT"]
    for name, n in (("SICK_train.txt", 40), ("SICK_trial.txt", 20), ("SICK_test_annotated.txt", 20)):
        _write(
            root / "SICK" / name,
            [SICK_HEADER]
            + [f"{i}\t{pair(i)[0]}\t{pair(i)[1]}\t{1.5 + 3 * (i % 2)}\t{labels[i % 2]}" for i in range(n)],
        )
    for split, n in (("train", 40), ("dev", 20), ("test", 20)):
        _write(
            root / "STS" / "STSBenchmark" / f"sts-{split}.csv",
            [f"g\tf\ty\t{i}\t{0.5 + 4 * (i % 2)}\t{pair(i)[0]}\t{pair(i)[1]}" for i in range(n)],
        )
    for subset in STS14_SUBSETS:
        folder = root / "STS" / "STS14-en-test"
        _write(folder / f"STS.input.{subset}.txt", [f"{pair(i)[0]}\t{pair(i)[1]}" for i in range(10)])
        _write(folder / f"STS.gs.{subset}.txt", [str(1 + 3 * (i % 2)) for i in range(10)])


def test_run_senteval_all_tasks_on_synthetic_data(tmp_path):
    _synthetic_root(tmp_path)
    rows = run_senteval(hashed_bow(64), tmp_path, PAPER_TASKS, seed=1111, kfold=3)
    by_task = {row["task"]: row for row in rows}
    assert [row["task"] for row in rows] == list(PAPER_TASKS)
    assert all(row["status"] == "ok" for row in rows)
    for task in ("MR", "CR", "SUBJ", "MPQA"):
        assert by_task[task]["n"] == 60 and by_task[task]["kfold"] == 3 and by_task[task]["score"] > 90
    assert by_task["SST2"]["n"] == 20 and by_task["SST2"]["n_train"] == 60 and by_task["SST2"]["score"] > 90
    assert by_task["SST5"]["score"] > 60  # chance: 20
    assert by_task["TREC"]["n"] == 24 and by_task["TREC"]["score"] > 90
    assert by_task["MRPC"]["metric"] == "acc/f1" and by_task["MRPC"]["f1"] > 90
    assert by_task["SICKEntailment"]["n_dev"] == 20 and by_task["SICKEntailment"]["score"] > 90
    for task in ("SICKRelatedness", "STSBenchmark"):
        assert by_task[task]["metric"] == "pearson/spearman" and by_task[task]["score"] > 0.9
    sts = by_task["STS14"]
    assert sts["n"] == 60 and set(sts["subsets"]) == set(STS14_SUBSETS)
    assert sts["score"] == pytest.approx(sts["pearson_mean"]) and sts["score"] > 0.5  # equal-size subsets


def test_run_senteval_reports_missing_tasks(tmp_path):
    _write(tmp_path / "CR" / "custrev.pos", ["good one", "great", "nice", "fine thing"])
    _write(tmp_path / "CR" / "custrev.neg", ["bad one", "awful", "poor", "broken thing"])
    rows = run_senteval(hashed_bow(32), tmp_path, ["CR", "SICK-E", "STS14"], kfold=2)
    assert [(r["task"], r["status"]) for r in rows] == [
        ("CR", "ok"),
        ("SICKEntailment", "missing"),
        ("STS14", "missing"),
    ]
    assert rows[1]["score"] is None and "SICK_train.txt" in rows[1]["reason"]
    assert str(tmp_path / "STS" / "STS14-en-test") in rows[2]["reason"]
    with pytest.raises(ValueError, match="unknown SentEval task"):
        run_senteval(hashed_bow(32), tmp_path, ["CR", "nope"])


def test_bad_encoder_output_is_an_error(tmp_path):
    _write(tmp_path / "CR" / "custrev.pos", ["good", "great"])
    _write(tmp_path / "CR" / "custrev.neg", ["bad", "awful"])
    with pytest.raises(ValueError, match="encoder returned shape"):
        run_senteval(lambda sentences: np.zeros((1, 3)), tmp_path, ["CR"], kfold=2)


@pytest.mark.shared_data
def test_real_tasks_with_cheap_encoder(shared_data):
    root = shared_data / "senteval-downstream"
    if not root.is_dir():
        pytest.skip(f"{root} is absent")
    tasks = ["MR", "CR", "TREC", "SST2", "SST5", "MRPC"]
    rows = run_senteval(hashed_bow(256), root, tasks, seed=1111, kfold=2)
    by_task = {row["task"]: row for row in rows}
    # the counts SentEval reports for these data sets
    assert (by_task["MR"]["n"], by_task["CR"]["n"]) == (10662, 3775)
    assert (by_task["TREC"]["n_train"], by_task["TREC"]["n"]) == (5452, 500)
    assert (by_task["SST2"]["n_train"], by_task["SST2"]["n_dev"], by_task["SST2"]["n"]) == (67349, 872, 1821)
    assert (by_task["SST5"]["n_train"], by_task["SST5"]["n_dev"], by_task["SST5"]["n"]) == (8544, 1101, 2210)
    # better than the majority class (MR 50%, CR 63.8%, TREC 27.6%, SST2 50.1%, SST5 22.9%)
    floors = {"MR": 55, "CR": 66, "TREC": 45, "SST2": 55, "SST5": 26}
    for task, floor in floors.items():
        assert by_task[task]["status"] == "ok" and by_task[task]["score"] > floor, by_task[task]
    assert by_task["MRPC"]["status"] == "missing"  # not in the shared sample
    print({task: by_task[task]["score"] for task in floors})


def _embed_float64_vstack(encode, texts, batch_size):
    """How the runner embedded before: float64 chunks stacked with np.vstack (twice the matrix at the end)."""
    chunks = [np.asarray(encode(list(texts[s : s + batch_size])), dtype=np.float64)
              for s in range(0, len(texts), batch_size)]
    return np.vstack(chunks)


def _pair_features_float64(u, v):
    u, v = np.asarray(u, dtype=np.float64), np.asarray(v, dtype=np.float64)
    return np.c_[np.abs(u - v), u * v]


def float32_encoder(dim=48):
    """An encoder that returns float32, as InferSent does: a hashed bag of words through a random projection."""
    projection = np.random.default_rng(4).normal(size=(64, dim)).astype(np.float32)
    bow = hashed_bow(64)
    return lambda sentences: (bow(sentences).astype(np.float32) @ projection).astype(np.float32)


@pytest.mark.parametrize("usepytorch", [False, True])
def test_float32_embeddings_give_the_float64_results(tmp_path, monkeypatch, usepytorch):
    """The embeddings fill one preallocated array of the encoder's type (InferSent's float32: SST-2 train at
    4,096 dimensions takes 1.1 GB instead of 2.2 GB, twice during a vstack): with an encoder that returns
    float32, the scores are those of the float64 vstack."""
    from cdaflow.sentence_bias.senteval import ClassifierSettings, runner
    from cdaflow.sentence_bias.senteval import relatedness as relatedness_module

    _synthetic_root(tmp_path)
    encode = float32_encoder()
    assert runner._embed(encode, ["a good film", "bad"] * 3, 4).dtype == np.float32
    float64 = runner._embed(hashed_bow(8), ["a good film", "bad"] * 3, 4)  # a float64 encoder keeps float64
    np.testing.assert_array_equal(float64, _embed_float64_vstack(hashed_bow(8), ["a good film", "bad"] * 3, 4))
    assert float64.dtype == np.float64
    assert pair_features(np.ones((2, 3), np.float32), np.zeros((2, 3), np.float32)).dtype == np.float32
    classifier = ClassifierSettings.from_config({"usepytorch": usepytorch, "max_epoch": 4, "epoch_size": 2})
    # The synthetic SICK-E has two of its three labels (0 and 2): the MLP, sized by the labels seen, cannot take it.
    tasks = [task for task in PAPER_TASKS if not (usepytorch and task == "SICKEntailment")]
    now = run_senteval(encode, tmp_path, tasks, seed=1111, kfold=3, batch_size=16, classifier=classifier)
    monkeypatch.setattr(runner, "_embed", _embed_float64_vstack)
    monkeypatch.setattr(runner, "pair_features", _pair_features_float64)
    monkeypatch.setattr(relatedness_module, "pair_features", _pair_features_float64)
    before = run_senteval(encode, tmp_path, tasks, seed=1111, kfold=3, batch_size=16, classifier=classifier)
    assert [row["task"] for row in now] == tasks and all(row["status"] == "ok" for row in now)
    for new, old in zip(now, before):
        assert new.keys() == old.keys()
        for key, value in old.items():
            if isinstance(value, float) and not usepytorch:  # liblinear on float32 vs float64 pair features
                assert new[key] == pytest.approx(value, rel=1e-6, abs=1e-9), (new["task"], key)
            else:
                assert new[key] == value, (new["task"], key)
