import torch

from cdaflow.morph_cda.tags import TagInventory, feats_with_tag, flip_gender, tag_from_feats


def test_tag_keeps_only_agreement_features_and_splits_multivalues():
    feats = {"Gender": "Fem,Masc", "Number": "Sing", "Definite": "Def", "Person": "3"}
    assert tag_from_feats(feats) == ("Gender=Fem", "Gender=Masc", "Number=Sing", "Person=3")
    assert tag_from_feats(None) == ()


def test_flip_gender():
    assert flip_gender(("Gender=Masc", "Number=Plur")) == ("Gender=Fem", "Number=Plur")
    assert flip_gender(("Number=Sing",)) == ("Number=Sing",)
    assert flip_gender(("Gender=Fem", "Gender=Masc")) == ("Gender=Fem", "Gender=Masc")


def test_feats_with_tag_replaces_agreement_features_only():
    feats = {"Definite": "Def", "Gender": "Masc", "Number": "Sing"}
    assert feats_with_tag(feats, ("Gender=Fem", "Number=Sing")) == {
        "Definite": "Def",
        "Gender": "Fem",
        "Number": "Sing",
    }


def test_inventory_multi_hot_variants_and_nearest():
    tags = [("Gender=Masc", "Number=Sing")] * 3 + [("Gender=Fem", "Number=Sing"), ("Number=Sing",)]
    inventory = TagInventory.from_tags(tags)
    assert inventory.tags[0] == ()  # the empty tag always exists
    assert inventory.subtags == ["Gender=Fem", "Gender=Masc", "Number=Sing"]
    hot = inventory.multi_hot()
    masc = inventory.index(("Gender=Masc", "Number=Sing"))
    fem = inventory.index(("Gender=Fem", "Number=Sing"))
    assert hot[masc].tolist() == [0, 1, 1]
    allowed = inventory.gender_variants()
    assert allowed[masc, fem] and allowed[fem, masc] and allowed[masc, masc]
    assert not allowed[inventory.index(("Number=Sing",)), masc]  # no gender: cannot gain one
    # An unseen tag maps to the known tag sharing most subtags.
    assert inventory.index(("Gender=Masc", "Number=Sing", "Person=3")) == masc


def test_inventory_json_round_trip(tmp_path):
    inventory = TagInventory.from_tags([("Gender=Fem",), ("Number=Plur",)])
    inventory.save(tmp_path / "inv.json")
    loaded = TagInventory.load(tmp_path / "inv.json")
    assert loaded.tags == inventory.tags and torch.equal(loaded.multi_hot(), inventory.multi_hot())
