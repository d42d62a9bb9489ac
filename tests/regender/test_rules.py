"""Study B's rule engine on hand-tagged segments: each rule family, each neutral structure."""

import pytest

from cdaflow.regender.rules import RuleSet, Segment, match_case


@pytest.fixture(scope="module")
def rules() -> RuleSet:
    return RuleSet.load()


def seg(text: str, tags: str) -> Segment:
    """Tokens split at spaces (punctuation written as its own token), spans computed on `text`."""
    tokens = text.replace("¿", "¿ ").replace("¡", "¡ ").replace("?", " ?").replace("!", " !")
    tokens = tokens.replace(".", " .").replace(",", " ,").split()
    spans, position = [], 0
    for token in tokens:
        start = text.index(token, position)
        spans.append((start, start + len(token)))
        position = start + len(token)
    tag_list = tags.split("-")
    assert len(tag_list) == len(tokens), (tokens, tag_list)
    return Segment(tuple(tokens), tuple(tag_list), text, tuple(spans))


@pytest.mark.parametrize(
    ("text", "tags", "variant"),
    [
        # Table 2: clitics
        ("Lo veo.", "PPC-Vfin-FS", "La veo."),
        ("¿Las quieres?", "FS-PPC-Vfin-FS", "¿Los quieres?"),
        ("No los necesito ahora.", "NEG-PPC-Vfin-ADV-FS", "No las necesito ahora."),
        ("Creo que no la tengo.", "Vfin-CQUE-NEG-PPC-Vfin-FS", "Creo que no lo tengo."),
        # Table 3: demonstratives
        ("Quiero este.", "Vfin-DM-FS", "Quiero esta."),
        ("Aquellas no.", "DM-NEG-FS", "Aquellos no."),
        ("Esa me gusta.", "DM-PPX-Vfin-FS", "Ese me gusta."),
        # Table 4: participles, accents and case kept
        ("Estoy aburrido.", "Vfin-Vadj-FS", "Estoy aburrida."),
        ("ESTOY CANSADA.", "Vfin-Vadj-FS", "ESTOY CANSADO."),
        ("Acabados y pagados.", "Vadj-CC-Vadj-FS", "Acabadas y pagadas."),
        ("¡Hecho!", "FS-Vadj-FS", "¡Hecha!"),
        ("Muy rota.", "ADV-Vadj-FS", "Muy roto."),
        # Table 5: adjectives
        ("¿Estás listo?", "FS-Vfin-ADJ-FS", "¿Estás lista?"),
        ("Es trabajadora.", "Vfin-ADJ-FS", "Es trabajador."),
        ("Son encantadores.", "Vfin-ADJ-FS", "Son encantadoras."),
        ("Rápido y fácil.", "ADJ-CC-ADJ-FS", "Rápida y fácil."),
        ("Quiero estar seguro.", "VMfin-Vinf-ADJ-FS", "Quiero estar segura."),
        ("Rápídisimo.", "ADJ-FS", "Rápídisima."),
        # Table 6: clitics on verbs, only the last gendered clitic changes
        ("Quiero verlo.", "VMfin-VCL-FS", "Quiero verla."),
        ("Mándamelo.", "VCL-FS", "Mándamela."),
        ("Tráemelas.", "VCL-FS", "Tráemelos."),
        ("Voy a comprarla.", "Vfin-PREP-Vinf-FS", "Voy a comprarlo."),  # footnote: a Vinf ending in -la
        # project rows: DM + ADJ, and a modal backing off to a finite verb
        ("Este es bueno.", "DM-Vfin-ADJ-FS", "Esta es buena."),
        ("No quiero ese.", "NEG-VMfin-DM-FS", "No quiero esa."),
        # no final punctuation
        ("está adjunto", "Vfin-ADJ", "está adjunta"),
    ],
)
def test_regenderable(rules, text, tags, variant):
    decision = rules.decide(seg(text, tags))
    assert decision.label == "G", decision
    assert decision.variant == variant
    assert all(c.old != c.new for c in decision.changes)


@pytest.mark.parametrize(
    ("text", "tags", "reason"),
    [
        ("Lo siento.", "PPC-Vfin-FS", "no gendered PPC"),  # §3.1
        ("No lo sé.", "NEG-PPC-Vfin-FS", "no gendered PPC"),
        ("Le digo.", "PPC-Vfin-FS", "no gendered PPC"),  # le is neutral
        ("¿Qué es esto?", "FS-INT-Vfin-DM-FS", "neutral demonstrative"),
        ("Eso es bueno.", "DM-Vfin-ADJ-FS", "neutral demonstrative"),  # §3.1
        ("Es genial.", "Vfin-ADJ-FS", "no gendered ADJ"),  # -al
        ("Es interesante.", "Vfin-ADJ-FS", "no gendered ADJ"),  # -nte
        ("Es probable.", "Vfin-ADJ-FS", "no gendered ADJ"),  # -ble
        ("Soy optimista.", "Vfin-ADJ-FS", "no gendered ADJ"),  # -ista
        ("Es bueno saberlo.", "Vfin-ADJ-VCL-FS", "no gendered VCL"),  # §3.1
        ("Avísame.", "VCL-FS", "no gendered VCL"),
        # Table 7: participles next to their noun, or after haber
        ("Acceso permitido.", "NC-Vadj-FS", "neutral Vadj sequence"),
        ("He terminado el informe.", "VHfin-Vadj-ART-NC-FS", "neutral Vadj sequence"),
        ("La tienda está cerrada.", "ART-NC-Vfin-Vadj-FS", "neutral Vadj sequence"),
        # Table 8: adjectives next to their noun
        ("¡Maravillosa idea!", "FS-ADJ-NC-FS", "neutral ADJ sequence"),
        ("La solución es correcta.", "ART-NC-Vfin-ADJ-FS", "neutral ADJ sequence"),
        ("Presupuestos adjuntos.", "NC-ADJ-FS", "neutral ADJ sequence"),
    ],
)
def test_neutral(rules, text, tags, reason):
    decision = rules.decide(seg(text, tags))
    assert decision.label == "N" and reason in decision.reason
    assert decision.variant == text and not decision.changes


def test_uncovered_and_too_long(rules):
    assert rules.decide(seg("Esta es la adecuada.", "DM-Vfin-ART-Vadj-FS")).label is None
    long = "uno dos tres cuatro cinco seis siete ocho nueve diez once"
    decision = rules.decide(Segment(tuple(long.split()), ("NC",) * 11, long))
    assert decision.label is None and "longer than 10" in decision.reason
    # haber + participle is never re-gendered, not even by a sequence that looks like Vfin-Vadj
    assert rules.decide(seg("He descansado.", "VHfin-Vadj-FS")).label is None


def test_render_without_text_joins_tokens(rules):
    decision = rules.decide(Segment(("Estoy", "cansado", "."), ("Vfin", "Vadj", "FS")))
    assert decision.variant == "Estoy cansada ."


@pytest.mark.parametrize(("template", "word", "out"), [("LO", "la", "LA"), ("Lo", "la", "La"), ("lo", "la", "la")])
def test_match_case(template, word, out):
    assert match_case(template, word) == out


def test_bad_rule_files_name_file_line_and_field(tmp_path):
    (tmp_path / "rules.yaml").write_text("clitics: {lo: la}\n")
    (tmp_path / "sequences.tsv").write_text("sequence\tlabel\tcategory\nPPC-Vfin-FS\tX\tPPC\n")
    with pytest.raises(ValueError, match=r"sequences.tsv:2: field label"):
        RuleSet.load(tmp_path)
    (tmp_path / "sequences.tsv").write_text("sequence\tlabel\tcategory\nPPC-Vfin-FS\tG\tNOUN\n")
    with pytest.raises(ValueError, match=r"sequences.tsv:2: field category"):
        RuleSet.load(tmp_path)
    (tmp_path / "sequences.tsv").write_text("sequence\tlabel\tcategory\nA-B\tG\tPPC\nA-B\tN\tPPC\n")
    with pytest.raises(ValueError, match="listed twice"):
        RuleSet.load(tmp_path)
    (tmp_path / "rules.yaml").write_text("clitics: [\n")
    (tmp_path / "sequences.tsv").write_text("sequence\tlabel\tcategory\n")
    with pytest.raises(ValueError, match="rules.yaml: not valid YAML"):
        RuleSet.load(tmp_path)
    with pytest.raises(FileNotFoundError, match="missing sequences.tsv"):
        RuleSet.load(tmp_path / "nowhere")


# A word of each category that has a gender, to fill generic segments.
GENDERED = {"PPC": "lo", "DM": "este", "Vadj": "cansado", "ADJ": "listo", "VCL": "verlo"}


def test_every_listed_sequence_gives_its_label(rules):
    for sequence, (label, category) in rules.sequences.items():
        tags = tuple(sequence.split("-"))
        wanted = category.split(",")
        tokens = tuple(GENDERED.get(t, "x") if t in wanted else {"FS": ".", "CM": ","}.get(t, "algo") for t in tags)
        decision = rules.decide(Segment(tokens, tags))
        assert decision.label == label, (sequence, decision)
        if label == "G":
            changed = {tags[c.index] for c in decision.changes}
            assert changed == set(wanted) & set(tags), (sequence, decision.changes)
