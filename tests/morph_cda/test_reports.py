"""Study A's tables: computed from their inputs, each beside the paper's number from paper.yaml."""

import json
from collections import Counter

import matplotlib
import pandas as pd
import pytest

from cdaflow import paper
from cdaflow.morph_cda.augment import CORPORA, AugmentCounts
from cdaflow.morph_cda.reports import (
    corpus_stats,
    extrinsic_tables,
    fig4,
    fig5,
    noun_counts_table,
    paper_number,
    prepare_summary,
    reinflection_table,
    with_table3_paper_columns,
)

matplotlib.use("Agg")

# LL(masc), LL(fem), LL(*masc), LL(*fem) of each (noun, adjective) under each corpus's LM: stereotyping
# is masc - fem, grammaticality ((masc - *masc) + (fem - *fem)) / 2.
SCORES = {
    "original": (-2.0, -6.0, -9.0, -9.0),  # stereotyping 4, grammaticality 5
    "swap": (-3.0, -5.0, -6.0, -6.0),  # 2, 2
    "mrf": (-4.0, -5.0, -9.0, -8.0),  # 1, 4
}


def write_inputs(root, langs, nouns=("ingeniero", "profesor")):
    """Probe scores, noun counts, corpus stats and LM metrics of each language (the stage's inputs)."""
    paths = {"probes": [], "nouns": [], "stats": [], "lms": []}
    for lang in langs:
        rows = [
            {"lang": lang, "masculine": noun, "adjective": adjective, "kind": kind, "phrase": f"{kind} {noun}"}
            | {corpus: SCORES[corpus][k] for corpus in CORPORA}
            for noun in nouns
            for adjective in ("good", "bad")
            for k, kind in enumerate(("masc", "fem", "*masc", "*fem"))
        ]
        folder = root / lang
        folder.mkdir(parents=True)
        pd.DataFrame(rows).to_csv(folder / "probes.tsv", sep="\t", index=False)
        # The first noun occurs as masculine 9 times in 10 (stereotyped toward men), the second evenly.
        counts = [{"masculine": nouns[0], "masc": 9, "fem": 1}, {"masculine": nouns[1], "masc": 5, "fem": 5}]
        pd.DataFrame(counts).to_csv(folder / "noun_counts.tsv", sep="\t", index=False)
        pd.DataFrame([{"lang": lang, "sentences": 10}]).to_csv(folder / "stats.tsv", sep="\t", index=False)
        for corpus in CORPORA:
            lm = folder / "lm" / corpus
            lm.mkdir(parents=True)
            (lm / "metrics.json").write_text(json.dumps({"dev_perplexity": 12.5}))
            paths["lms"].append(str(lm))
        for key, name in (("probes", "probes.tsv"), ("nouns", "noun_counts.tsv"), ("stats", "stats.tsv")):
            paths[key].append(str(folder / name))
    return paths


def test_paper_numbers_come_from_paper_yaml():
    assert paper_number("es_lin_tag_f1") == paper.value("morph_cda", "es_lin_tag_f1") == 82.29
    assert paper_number("he_nn_form_accuracy") == 86.25
    assert paper_number("xx_lin_tag_f1") is None


def test_reinflection_table_sets_the_paper_accuracy_beside_ours():
    table = reinflection_table("demo", "es", 90, 10, 95, 88.5)
    assert table.to_dict("records") == [
        {"scale": "demo", "lang": "es", "train_pairs": 90, "heldout_pairs": 10, "lexicon_entries": 95,
         "heldout_accuracy": 88.5, "paper_accuracy": 97.78}
    ]  # fmt: skip
    assert reinflection_table("demo", "de", 1, 1, 1, 50.0)["paper_accuracy"].iloc[0] is None


def test_table3_paper_columns_per_model_and_none_for_swap():
    table = with_table3_paper_columns(pd.DataFrame({"model": ["BASE", "LIN", "NN", "SWAP"]}), "he")
    assert table["paper_tag_f1"].tolist()[:3] == [55.32, 72.66, 73.12]
    assert table["paper_tag_precision"].tolist()[:3] == [89.04, 87.07, 87.18]
    assert pd.isna(table["paper_form_accuracy"].iloc[3])
    assert with_table3_paper_columns(pd.DataFrame({"model": ["LIN"]}), "fr")["paper_tag_f1"].tolist() == [None]


def test_prepare_summary_counts_each_part():
    class Annotated:
        def __init__(self, split):
            self.eval_split = split

    table = prepare_summary("demo", "es", 80, 3, 9, 1, [Annotated("dev"), Annotated("test"), Annotated("test")])
    assert table[["part", "sentences", "annotated_removed"]].values.tolist() == [
        ["train", 80, 3], ["dev", 9, 1], ["annotated_dev", 1, 0], ["annotated_test", 2, 0]
    ]  # fmt: skip


def test_corpus_stats_beside_table4():
    counts = AugmentCounts(sentences=40, animate_sentences=10, animate_nouns=12, copies=14)
    row = corpus_stats("demo", "es", 7, counts).iloc[0]
    assert (row["animate_percent"], row["paper_gazetteer_pairs"], row["paper_animate_percent"]) == (25.0, 259, 20)
    assert corpus_stats("demo", "de", 7, counts)["paper_gazetteer_pairs"].iloc[0] is None


def test_noun_counts_table_by_masculine_lemma():
    table = noun_counts_table(Counter({("niño", "Masc"): 3, ("niño", "Fem"): 1, ("abogado", "Fem"): 2}))
    assert table.values.tolist() == [["abogado", 0, 2], ["niño", 3, 1]]


def test_extrinsic_tables(tmp_path):
    inputs = write_inputs(tmp_path, ["es", "it", "fr"])
    tables = extrinsic_tables("demo", ["es", "it", "fr"], threshold=0.75, **inputs)
    es = tables.results[tables.results["lang"] == "es"].set_index("corpus")
    assert es["stereotyping"].to_dict() == {"original": 4.0, "swap": 2.0, "mrf": 1.0}
    assert es["grammaticality"].to_dict() == {"original": 5.0, "swap": 2.0, "mrf": 4.0}
    assert set(es["lm_dev_perplexity"]) == {12.5}
    reductions = tables.reductions.set_index("lang")
    assert reductions["reduction_original_over_mrf"].to_dict() == {"es": 4.0, "it": 4.0, "fr": 4.0, "average": 4.0}
    assert reductions["reduction_original_over_swap"]["average"] == 2.0
    # §5.2's factors where the paper gives one (Spanish, Italian, the average).
    assert reductions["paper"].to_dict() == pytest.approx({"es": 5.0, "it": 1.2, "fr": float("nan"), "average": 2.5},
                                                          nan_ok=True)  # fmt: skip
    # Only the first noun leans one way (toward men): Fig. 5 holds its stereotyping, the paper's for Spanish.
    groups = tables.groups.set_index(["lang", "stereotyped_toward", "corpus"])
    assert groups.loc[("es", "Masc", "mrf"), "mean_stereotyping"] == 1.0
    assert groups.loc[("es", "Masc", "mrf"), "paper_es"] == 0.97
    assert groups.loc[("es", "Fem", "original"), "paper_es"] == -4.80
    assert pd.isna(groups.loc[("es", "Fem", "original"), "mean_stereotyping"])
    assert pd.isna(groups.loc[("it", "Masc", "mrf"), "paper_es"])
    assert set(tables.table8["masculine"]) == {"ingeniero"} and len(tables.table8) == 8
    assert tables.table4["lang"].tolist() == ["es", "it", "fr"]
    assert len(fig4(tables.results, "demo").axes) == 2
    assert fig5(tables.groups).axes[0].get_title() == "nouns stereotyped toward one gender"


def test_table8_falls_back_to_the_first_spanish_noun(tmp_path):
    inputs = write_inputs(tmp_path, ["es"], nouns=("abogado", "profesor"))
    assert set(extrinsic_tables("demo", ["es"], threshold=0.75, **inputs).table8["masculine"]) == {"abogado"}
