"""The re-genderability classifier: its three feature groups, training, and Table 2's scores."""

import joblib
import pytest

from cdaflow.regender.classifier import build_classifier, frame, save_classifier, scores


def test_features_and_training():
    texts = ["Estoy cansado.", "Estoy cansada.", "Lo veo.", "La veo.", "Hola.", "Gracias.", "Buenos días.", "Adiós."]
    gendered = [True, True, True, True, False, False, True, False]
    labels = ["G", "G", "G", "G", "N", "N", "N", "N"]
    model = build_classifier(char_ngrams=(2, 4), max_char_features=50, seed=0)
    model.fit(frame(texts, gendered), labels)
    features = model.named_steps["features"]
    chars = features.named_transformers_["chars"]
    assert len(chars.vocabulary_) == 50  # capped
    assert all(2 <= len(gram) <= 4 for gram in chars.vocabulary_)
    words = features.named_transformers_["words"]
    assert "estoy cansado" in words.vocabulary_  # word bigrams
    width = features.transform(frame(texts[:1], gendered[:1])).shape[1]
    assert width == 50 + len(words.vocabulary_) + 1  # + the gendered flag
    assert list(model.predict(frame(texts, gendered))) == labels  # separable training data
    with pytest.raises(ValueError, match="gendered flags"):
        frame(texts, gendered[:2])


def test_saved_classifier_is_the_same_bytes_for_the_same_fit(tmp_path):
    texts, gendered, labels = ["Estoy cansado.", "Hola.", "La veo.", "Adiós."], [True, False, True, False], list("GNGN")
    for name in ("a", "b"):
        model = build_classifier(char_ngrams=(2, 3), max_char_features=20, seed=0)
        model.fit(frame(texts, gendered), labels)
        save_classifier(model, tmp_path / f"{name}.joblib")
    first = (tmp_path / "a.joblib").read_bytes()
    assert first == (tmp_path / "b.joblib").read_bytes() and b"_stop_words_id" not in first
    loaded = joblib.load(tmp_path / "a.joblib")
    assert list(loaded.predict(frame(texts, gendered))) == list(model.predict(frame(texts, gendered)))


def test_scores_by_hand():
    gold = ["G", "G", "G", "N", "N"]
    predicted = ["G", "G", "N", "G", "N"]
    out = scores(gold, predicted)
    assert out["accuracy"] == pytest.approx(60.0)
    assert out["G_precision"] == pytest.approx(200 / 3) and out["G_recall"] == pytest.approx(200 / 3)
    assert out["N_precision"] == pytest.approx(50.0) and out["N_recall"] == pytest.approx(50.0)
    assert (out["G_support"], out["N_support"], out["n"]) == (3, 2, 5)


def test_read_split_reads_the_parallel_columns(tmp_path):
    from cdaflow.regender.classifier import read_split

    for suffix, text in (("src", "Lo veo.\nHola.\n"), ("label", "G\nN\n"), ("gendered", "1\n0\n")):
        (tmp_path / f"dev.{suffix}").write_text(text, encoding="utf-8")
    assert read_split(tmp_path, "dev") == (["Lo veo.", "Hola."], ["G", "N"], [True, False])
    (tmp_path / "dev.label").write_text("G\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"dev\.\*: 2 segments, 1 labels, 2 flags"):
        read_split(tmp_path, "dev")
