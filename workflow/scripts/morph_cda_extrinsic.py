"""Fig. 4 / Table 5, reduction factors, Fig. 5, Tables 4 and 8 of §5.2 (rule morph_cda_extrinsic)."""

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from cdaflow.io.atomic import atomic_file  # noqa: E402
from cdaflow.io.tables import write_tsv_atomic  # noqa: E402
from cdaflow.morph_cda.probes import Probe, grammaticality, stereotyped_nouns, stereotyping  # noqa: E402
from cdaflow.runtime import rule_context  # noqa: E402

CORPORA = ("original", "swap", "mrf")
# Fig. 5 of the arXiv version: mean stereotyping of Spanish nouns stereotyped toward women / men.
PAPER_FIG5 = {"original": (-4.80, 4.26), "swap": (-3.29, 1.32), "mrf": (-2.17, 0.97)}
PAPER_REDUCTION = {"average": 2.5, "it": 1.2, "es": 5.0}


def save(fig, path):
    fig.tight_layout()
    with atomic_file(path, "wb") as handle:
        fig.savefig(handle, format="png", dpi=120)
    plt.close(fig)


with rule_context(snakemake) as log:  # noqa: F821
    smk = snakemake  # noqa: F821
    p = smk.params
    rows, groups, reductions, table8 = [], [], [], None
    lm_folders = {(Path(f).parent.parent.name, Path(f).name): Path(f) for f in smk.input.lms}
    for lang, probes_path, nouns_path in zip(p.langs, smk.input.probes, smk.input.nouns, strict=True):
        table = pd.read_csv(probes_path, sep="\t", keep_default_na=False)
        probes = [Probe(r.masculine, r.adjective, r.kind, r.phrase) for r in table.itertuples()]
        counts = pd.read_csv(nouns_path, sep="\t", keep_default_na=False)
        leaning = stereotyped_nouns({r.masculine: (r.masc, r.fem) for r in counts.itertuples()}, p.threshold)
        for corpus in CORPORA:
            st = stereotyping(probes, table[corpus].tolist())
            gr = grammaticality(probes, table[corpus].tolist())
            metrics = json.loads((lm_folders[(lang, corpus)] / "metrics.json").read_text())
            rows.append({
                "scale": p.scale, "lang": lang, "corpus": corpus, "nouns": len({n for n, _ in st}),
                "stereotyping": float(np.mean(np.abs(list(st.values())))),
                "stereotyping_signed": float(np.mean(list(st.values()))),
                "grammaticality": float(np.mean(list(gr.values()))),
                "lm_dev_perplexity": metrics["dev_perplexity"],
            })
            for gender, sign in (("Fem", 0), ("Masc", 1)):
                values = [v for (noun, _), v in st.items() if leaning.get(noun) == gender]
                groups.append({
                    "scale": p.scale, "lang": lang, "stereotyped_toward": gender, "corpus": corpus,
                    "nouns": len({noun for noun, g in leaning.items() if g == gender}),
                    "mean_stereotyping": float(np.mean(values)) if values else None,
                    "paper_es": PAPER_FIG5[corpus][sign] if lang == "es" else None,
                })
        by_corpus = {r["corpus"]: r["stereotyping"] for r in rows if r["lang"] == lang}
        reductions.append({"scale": p.scale, "lang": lang,
                           "reduction_original_over_mrf": by_corpus["original"] / by_corpus["mrf"],
                           "reduction_original_over_swap": by_corpus["original"] / by_corpus["swap"],
                           "paper": PAPER_REDUCTION.get(lang)})
        if lang == "es":
            noun = "ingeniero" if "ingeniero" in set(table["masculine"]) else table["masculine"].iloc[0]
            table8 = table[table["masculine"] == noun]
    average = {key: float(np.mean([r[key] for r in reductions]))
               for key in ("reduction_original_over_mrf", "reduction_original_over_swap")}
    reductions.append({"scale": p.scale, "lang": "average", **average, "paper": PAPER_REDUCTION["average"]})
    results = pd.DataFrame(rows)
    write_tsv_atomic(results, Path(smk.output.table))
    write_tsv_atomic(pd.DataFrame(reductions), Path(smk.output.reduction))
    write_tsv_atomic(pd.DataFrame(groups), Path(smk.output.stereotyped))
    write_tsv_atomic(pd.concat([pd.read_csv(f, sep="\t") for f in smk.input.stats]), Path(smk.output.table4))
    write_tsv_atomic(table8 if table8 is not None else pd.DataFrame(columns=["lang"]), Path(smk.output.table8))

    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
    for ax, metric in zip(axes, ("stereotyping", "grammaticality"), strict=True):
        wide = results.pivot(index="lang", columns="corpus", values=metric)[list(CORPORA)]
        wide.plot.bar(ax=ax, rot=0)
        ax.set_title(f"{metric} ({p.scale})")
    save(fig, smk.output.fig4)
    fig, ax = plt.subplots(figsize=(6, 3.4))
    frame = pd.DataFrame(groups)
    if len(frame.dropna(subset=["mean_stereotyping"])):
        frame.dropna(subset=["mean_stereotyping"]).pivot_table(
            index=["lang", "stereotyped_toward"], columns="corpus", values="mean_stereotyping"
        )[list(CORPORA)].plot.bar(ax=ax, rot=0)
    ax.set_title("nouns stereotyped toward one gender")
    save(fig, smk.output.fig5)
    log.info("%s", results.to_dict("records"))
