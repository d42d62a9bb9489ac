"""Model cards: what a model folder says it is, checked by the command that loads it."""

import json

import pytest

from cdaflow.io.model_card import check_card, demo_notice, read_card, write_card


def card(folder, **changes):
    fields = {"kind": "cda", "lang": "es", "scale": "demo", "data": ["144 trees"], "size": {"train_trees": 144},
              "heldout": {"metric": "form accuracy", "value": 0.9259, "on": "45 sentences"}}
    fields.update(changes)
    return write_card(folder, **fields)


def test_a_card_round_trips_and_says_how_to_build_the_real_model(tmp_path):
    written = card(tmp_path)
    assert read_card(tmp_path) == written
    assert written["build"] == "snakemake morph_cda_models --configfile config/paper.yaml --cores all"
    assert demo_notice(written) == (
        "demo model (held-out form accuracy 0.926): for trying the command, not for research; "
        "build the real one with `snakemake morph_cda_models --configfile config/paper.yaml --cores all`"
    )
    assert demo_notice(card(tmp_path, scale="paper")) is None
    assert read_card(tmp_path / "absent") is None  # models saved before cards: nothing to say


def test_a_model_of_another_kind_or_language_is_refused_by_name(tmp_path):
    card(tmp_path, kind="subjectivizer", lang="en")
    with pytest.raises(ValueError, match=r"this is a subjectivizer folder \(for cdaflow subjectivize\), not a morpho"):
        check_card(tmp_path, "cda")
    card(tmp_path, lang="fr")
    with pytest.raises(ValueError, match=r"a model for 'fr', not 'es'"):
        check_card(tmp_path, "cda", lang="es")
    assert check_card(tmp_path, "cda", lang="fr")["lang"] == "fr"


def test_a_broken_card_names_its_file(tmp_path):
    (tmp_path / "model_card.json").write_text("{")
    with pytest.raises(ValueError, match=r"model_card\.json: not valid JSON"):
        read_card(tmp_path)
    (tmp_path / "model_card.json").write_text(json.dumps({"kind": "cda", "scale": "demo", "data": "x"}))
    with pytest.raises(ValueError, match=r"model_card\.json: data: expected list"):
        read_card(tmp_path)
    with pytest.raises(ValueError, match="unknown scale"):
        card(tmp_path, scale="huge")


def test_card_scales_are_the_config_schema_scales_and_rehearsal_models_announce_themselves():
    from pathlib import Path

    import yaml

    from cdaflow.io.model_card import SCALES, demo_notice

    schema = yaml.safe_load((Path(__file__).resolve().parents[2] / "workflow/schemas/config.schema.yaml").read_text())
    assert list(SCALES) == schema["properties"]["scale"]["enum"]
    notice = demo_notice({"kind": "cda", "scale": "rehearsal", "heldout": {}})
    assert notice and notice.startswith("rehearsal model: for trying the command, not for research")
    assert demo_notice({"kind": "cda", "scale": "paper"}) is None
