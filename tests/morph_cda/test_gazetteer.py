"""Gazetteer kinds (pair, common, epicene), plural forms, provenance, and the shipped lists."""

from pathlib import Path

import pytest

from cdaflow.io.conllu import parse_conllu_string
from cdaflow.morph_cda.gazetteer import KINDS, Gazetteer, regular_plural
from tests.conftest import shared_data_dir

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "resources" / "morph_cda" / "gazetteers"

LIST = """# A test list
# second provenance line
masculine\tfeminine\tenglish\tkind\tmasculine_plural\tfeminine_plural
rey\treina\tking\tpair\treyes\treinas
actor\tactriz\tactor\tpair\tactores\tactrices
hijo\thija\tson\t\thijos\thijas
periodista\tperiodista\tjournalist\tcommon\tperiodistas\tperiodistas
fils\tfille\tson\tpair\tfils\tfilles
músico\tmúsica\tmusician\tone-way\tmúsicos\tmúsicas
\tpersona\tperson\tepicene\t\tpersonas
individuo\t\tindividual\tepicene\tindividuos\t
"""


def word(form, lemma, feats="", upos="NOUN", id_=1, head=0, deprel="root"):
    return {
        "id": id_,
        "form": form,
        "lemma": lemma,
        "upos": upos,
        "feats": dict(f.split("=") for f in feats.split("|")) if feats else None,
        "head": head,
        "deprel": deprel,
    }


@pytest.fixture
def gazetteer(tmp_path):
    path = tmp_path / "es.tsv"
    path.write_text(LIST, encoding="utf-8")
    return Gazetteer.read(path)


def test_kinds_and_provenance(gazetteer):
    assert gazetteer.counts() == {"pair": 4, "one-way": 1, "common": 1, "epicene": 2}
    assert gazetteer.source == ["read from es.tsv", "A test list", "second provenance line"]
    assert gazetteer.to_fem["rey"] == "reina" and gazetteer.to_masc["actriz"] == "actor"


@pytest.mark.parametrize(
    "form, lemma, feats, expected",
    [
        ("hijo", "hijo", "Gender=Masc|Number=Sing", ("hija", "Fem", "hija")),
        ("hijas", "hijo", "Gender=Fem|Number=Plur", ("hijo", "Masc", "hijos")),
        ("reyes", "rey", "Gender=Masc|Number=Plur", ("reina", "Fem", "reinas")),
        ("actores", "actor", "Gender=Masc|Number=Plur", ("actriz", "Fem", "actrices")),
        ("actrices", "actriz", "Gender=Fem|Number=Plur", ("actor", "Masc", "actores")),
        # a plural form the tagger lemmatised wrongly is still found by its form
        ("reinas", "reinas", "", ("rey", "Masc", "reyes")),
        # common gender: the noun stays, the gender follows its Gender feature
        ("periodista", "periodista", "Gender=Fem|Number=Sing", ("periodista", "Masc", "periodista")),
        ("periodistas", "periodista", "Gender=Masc|Number=Plur", ("periodista", "Fem", "periodistas")),
        # one form for both numbers: the Number feature decides
        ("fils", "fils", "Gender=Masc|Number=Plur", ("fille", "Fem", "filles")),
        ("fils", "fils", "Gender=Masc|Number=Sing", ("fille", "Fem", "fille")),
    ],
)
def test_lookup(gazetteer, form, lemma, feats, expected):
    found = gazetteer.lookup(word(form, lemma, feats))
    assert (found.lemma, found.gender, found.form) == expected


def test_epicene_nouns_never_change(gazetteer):
    for form, lemma in (("persona", "persona"), ("personas", "persona"), ("individuos", "individuo")):
        assert gazetteer.lookup(word(form, lemma, "Gender=Fem")) is None
        assert gazetteer.is_epicene(word(form, lemma))
    assert not gazetteer.is_epicene(word("hijo", "hijo"))


def test_common_gender_from_its_determiner(gazetteer):
    (sentence,) = parse_conllu_string(
        "1\tLa\tel\tDET\t_\tGender=Fem|Number=Sing\t2\tdet\t_\t_\n"
        "2\tperiodista\tperiodista\tNOUN\t_\tNumber=Sing\t3\tnsubj\t_\t_\n"
        "3\tllegó\tllegar\tVERB\t_\t_\t0\troot\t_\t_\n\n"
    )
    noun = sentence[1]
    assert gazetteer.lookup(noun, sentence).gender == "Masc"  # "la periodista" is feminine
    assert gazetteer.lookup(noun).gender == "Fem"  # without context: taken as masculine


def test_without_plural_columns_plurals_are_reinflected(tmp_path):
    path = tmp_path / "old.tsv"
    path.write_text("masculine\tfeminine\tenglish\nniño\tniña\tchild\n", encoding="utf-8")
    found = Gazetteer.read(path).lookup(word("niños", "niño", "Gender=Masc|Number=Plur"))
    assert (found.lemma, found.form) == ("niña", None)


def test_write_keeps_everything(gazetteer, tmp_path):
    gazetteer.write(tmp_path / "out.tsv")
    again = Gazetteer.read(tmp_path / "out.tsv")
    assert again.plurals == gazetteer.plurals and again.epicene == gazetteer.epicene
    assert again.common == gazetteer.common and again.to_fem == gazetteer.to_fem
    assert again.one_way == gazetteer.one_way == {"músico"}
    assert again.source[1:] == gazetteer.source  # the provenance travels with it


@pytest.mark.parametrize(
    "row, message",
    [
        ("niño\tniña\tchild\tboth\t\t", "row 2: kind 'both' is not one of pair, pair-common, one-way, common, epicene"),
        ("\tpersona\tperson\tepicene\t\t\nx\ty\t\tepicene\t\t", "row 3: an epicene noun fills only"),
        ("líder\tlídera\tleader\tcommon\t\t", "row 2: a common-gender noun has one form"),
        ("joven\tjoven\tyoung\tpair\t\t", "row 2: 'joven' is the same form for both genders"),
        ("\t\t\t\treyes\t", "row 2: expected masculine and feminine"),
    ],
)
def test_bad_rows_are_named(tmp_path, row, message):
    path = tmp_path / "bad.tsv"
    path.write_text("masculine\tfeminine\tenglish\tkind\tmasculine_plural\tfeminine_plural\n" + row + "\n")
    with pytest.raises(ValueError, match=message):
        Gazetteer.read(path)


@pytest.mark.parametrize(
    "lang, singular, gender, plural",
    [
        ("es", "hijo", "Masc", "hijos"),
        ("es", "jugador", "Masc", "jugadores"),
        ("es", "actriz", "Fem", "actrices"),
        ("es", "anfitrión", "Masc", "anfitriones"),
        ("es", "francés", "Masc", "franceses"),
        ("es", "marroquí", "Masc", "marroquíes"),
        ("fr", "acteur", "Masc", "acteurs"),
        ("fr", "français", "Masc", "français"),
        ("fr", "neveu", "Masc", "neveux"),
        ("it", "figlio", "Masc", "figli"),
        ("it", "attrice", "Fem", "attrici"),
        ("it", "amica", "Fem", "amiche"),
        ("it", "papà", "Masc", "papà"),
        ("he", "תלמיד", "Masc", "תלמידים"),
        ("he", "תלמידה", "Fem", "תלמידות"),
        ("he", "מלך", "Masc", "מלכים"),
        ("he", "סטודנטית", "Fem", "סטודנטיות"),
        ("he", "יהודייה", "Fem", "יהודיות"),
    ],
)
def test_regular_plurals(lang, singular, gender, plural):
    assert regular_plural(lang, singular, gender) == plural


def test_fill_plurals_keeps_hand_written_cells(tmp_path):
    path = tmp_path / "list.tsv"
    path.write_text(
        "# provenance\nmasculine\tfeminine\tenglish\tkind\tmasculine_plural\tfeminine_plural\n"
        "rey\treina\tking\tpair\treyes\t\nhijo\thija\tson\tpair\t\t\n",
        encoding="utf-8",
    )
    assert Gazetteer.fill_plurals(path, "es") == 3
    assert path.read_text(encoding="utf-8").splitlines()[2:] == [
        "rey\treina\tking\tpair\treyes\treinas",
        "hijo\thija\tson\tpair\thijos\thijas",
    ]


@pytest.mark.parametrize("lang", ["es", "fr", "it", "he"])
def test_shipped_lists(lang):
    """The default lists read cleanly, name their provenance, and cover every kind they claim."""
    path = SHIPPED / f"{lang}.tsv"
    gazetteer = Gazetteer.read(path)
    assert len(gazetteer.source) > 3  # path + provenance lines
    assert len(gazetteer) >= 150
    text = path.read_text(encoding="utf-8").splitlines()
    header = next(line for line in text if not line.startswith("#")).split("\t")
    assert header[:6] == ["masculine", "feminine", "english", "kind", "masculine_plural", "feminine_plural"]
    rows = [line.split("\t") for line in text[text.index("\t".join(header)) + 1 :] if not line.startswith("#")]
    assert all(len(row) == 6 and row[3] in KINDS for row in rows)
    assert all(row[4] or row[5] for row in rows)  # every plural written out
    # no form is both a masculine and a feminine of different pairs
    clash = set(gazetteer.to_fem) & set(gazetteer.to_masc) - gazetteer.common
    assert not clash, clash


def test_pair_common_reads_the_masculine_form_from_its_context(tmp_path):
    """A masculine form that also names women (esa cliente, esas clientes) is read off
    its determiner; a man gets the standard feminine, a woman named by either form the
    masculine."""
    path = tmp_path / "es.tsv"
    path.write_text("masculine\tfeminine\tenglish\tkind\tmasculine_plural\tfeminine_plural\n"
                    "cliente\tclienta\tclient\tpair-common\tclientes\tclientas\n", encoding="utf-8")
    gazetteer = Gazetteer.read(path)
    assert gazetteer.counts() == {"pair": 0, "pair-common": 1, "one-way": 0, "common": 0, "epicene": 0}

    def noun_after(article, form, article_feats, noun_feats=""):
        (sentence,) = parse_conllu_string(
            f"1\t{article}\tel\tDET\t_\t{article_feats}\t2\tdet\t_\t_\n"
            f"2\t{form}\tcliente\tNOUN\t_\t{noun_feats or '_'}\t3\tnsubj\t_\t_\n"
            "3\tesperaba\tesperar\tVERB\t_\t_\t0\troot\t_\t_\n\n")
        found = gazetteer.lookup(sentence[1], sentence)
        return found.form, found.gender, found.kind

    # spaCy's Gender=Masc on the noun loses to the article: "Esa cliente esperaba" names a woman
    assert noun_after("Esa", "cliente", "Gender=Fem|Number=Sing", "Gender=Masc|Number=Sing") == (
        "cliente", "Masc", "pair-common")
    assert noun_after("Ese", "cliente", "Gender=Masc|Number=Sing") == ("clienta", "Fem", "pair-common")
    assert noun_after("Esas", "clientes", "Gender=Fem|Number=Plur") == ("clientes", "Masc", "pair-common")
    assert noun_after("Esos", "clientes", "Gender=Masc|Number=Plur") == ("clientas", "Fem", "pair-common")
    assert noun_after("Esa", "clienta", "Gender=Fem|Number=Sing") == ("cliente", "Masc", "pair-common")
    # written out again, the kind survives (a model folder's copy)
    gazetteer.write(tmp_path / "copy.tsv")
    assert Gazetteer.read(tmp_path / "copy.tsv").shared == {"cliente"}


def test_names_are_not_nouns(gazetteer):
    assert gazetteer.lookup(word("Reina", "Reina", "", upos="PROPN")) is None  # a name
    assert gazetteer.lookup(word("reina", "reina", "", upos="PROPN")).lemma == "rey"  # a tagging slip


def test_describe_names_the_source_and_kinds(gazetteer, tmp_path):
    gazetteer.write(tmp_path / "gazetteer.tsv")
    line = Gazetteer.read(tmp_path / "gazetteer.tsv").describe()
    assert line == "gazetteer.tsv <- es.tsv (4 pair, 1 one-way, 1 common, 2 epicene): A test list"


def test_one_way_pairs_change_the_masculine_only(gazetteer):
    found = gazetteer.lookup(word("músicos", "músico", "Gender=Masc|Number=Plur"))
    assert (found.lemma, found.gender, found.form, found.kind) == ("música", "Fem", "músicas", "one-way")
    for form, lemma in (("música", "música"), ("música", "músico"), ("músicas", "música")):
        assert gazetteer.lookup(word(form, lemma, "Gender=Fem")) is None  # "la música" is music


def test_an_adjective_with_a_determiner_is_a_noun(tmp_path):
    """spaCy tags "el sospechoso" ADJ: with its own determiner in a nominal relation it is a noun."""
    path = tmp_path / "es.tsv"
    path.write_text("masculine\tfeminine\nsospechoso\tsospechosa\n", encoding="utf-8")
    gazetteer = Gazetteer.read(path)
    (sentence,) = parse_conllu_string(
        "1\tEl\tel\tDET\t_\tGender=Masc|Number=Sing\t2\tdet\t_\t_\n"
        "2\tsospechoso\tsospechoso\tADJ\t_\tGender=Masc|Number=Sing\t3\tnsubj\t_\t_\n"
        "3\thuyó\thuir\tVERB\t_\t_\t0\troot\t_\t_\n"
        "4\tsospechoso\tsospechoso\tADJ\t_\tGender=Masc|Number=Sing\t3\txcomp\t_\t_\n\n"
    )
    assert gazetteer.lookup(sentence[1], sentence).form == "sospechosa"
    assert gazetteer.lookup(sentence[1]) is None  # without the sentence an adjective stays one
    assert gazetteer.lookup(sentence[3], sentence) is None  # a predicate adjective is no noun
    (fused,) = parse_conllu_string(
        "1\tVi\tver\tVERB\t_\t_\t0\troot\t_\t_\n"
        "2\tal\tal\tADP\t_\tAdpType=Preppron\t3\tcase\t_\t_\n"
        "3\tsospechoso\tsospechoso\tADJ\t_\tGender=Masc|Number=Sing\t1\tobj\t_\t_\n\n"
    )
    assert gazetteer.lookup(fused[2], fused).form == "sospechosa"  # "al" is "a" + "el"


def test_a_row_without_kind_with_one_form_is_common_gender(tmp_path):
    """biasCDA's lists (english, fem, masc; no kind column) write a common-gender noun twice."""
    path = tmp_path / "spanish.tsv"
    path.write_text("english\tfem\tmasc\nmasseur\tmasajista\tmasajista\nmonk\tmonja\tmonje\n", encoding="utf-8")
    gazetteer = Gazetteer.read(path)
    assert gazetteer.common == {"masajista"}
    assert gazetteer.counts() == {"pair": 1, "one-way": 0, "common": 1, "epicene": 0}
    found = gazetteer.lookup(word("masajista", "masajista", "Gender=Fem|Number=Sing"))
    assert (found.form, found.gender, found.kind) == ("masajista", "Masc", "common")
    headerless = tmp_path / "french.tsv"  # biasCDA's French list: no header
    headerless.write_text("baby\tbébé\tbébé\nspy\tespionne\tespion\n", encoding="utf-8")
    assert Gazetteer.read(headerless).common == {"bébé"}
    # a pair row first keeps its kind when the same masculine comes back with one form
    both = tmp_path / "both.tsv"
    both.write_text("english\tfem\tmasc\nmonk\tmonja\tmonje\nmonk\tmonje\tmonje\n", encoding="utf-8")
    assert Gazetteer.read(both).common == set()


@pytest.mark.parametrize("name, common", [("spanish.tsv", "masajista"), ("french.tsv", "bébé")])
def test_biascda_lists_read_as_they_are(shared_data, name, common):
    path = shared_data / "biasCDA" / "animacy" / name
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    gazetteer = Gazetteer.read(path)
    assert common in gazetteer.common
    assert len(gazetteer) > 200


def _config_gazetteers():
    """Every gazetteer a config names by path, and biasCDA's by its dataset's files."""
    import yaml

    found = []
    for config in ("config.yaml", "config/validation.yaml", "config/paper.yaml"):
        settings = yaml.safe_load((ROOT / config).read_text(encoding="utf-8"))
        for lang, language in (settings["studies"]["morph_cda"].get("languages") or {}).items():
            ref = (language or {}).get("gazetteer") or {}
            if "path" in ref:
                found.append(pytest.param(config, ROOT / ref["path"], id=f"{config}-{lang}"))
            elif "dataset" in ref:
                found.append(pytest.param(config, ("dataset", ref["file"]), id=f"{config}-{lang}"))
    return found


@pytest.mark.parametrize("config, path", _config_gazetteers())
def test_every_configured_gazetteer_loads(config, path):
    if isinstance(path, tuple):  # rycolab/biasCDA's list, a dataset of the shared data folder
        folder = shared_data_dir()
        if folder is None or not (folder / "biasCDA" / "animacy" / path[1]).is_file():
            pytest.skip(f"biasCDA's {path[1]} is absent")
        path = folder / "biasCDA" / "animacy" / path[1]
    assert len(Gazetteer.read(path)) >= 100


def test_lookup_gives_the_number_of_the_form(gazetteer):
    """A plural form the list knows is plural even without a Number feature (spaCy's PROPN slips)."""
    assert gazetteer.lookup(word("reyes", "reyes", "", upos="NOUN")).number == "Plur"
    assert gazetteer.lookup(word("reina", "reina", "", upos="NOUN")).number == "Sing"
    assert gazetteer.lookup(word("hijos", "hijo", "Gender=Masc|Number=Plur")).number == "Plur"


def test_titles_adjectives_after_a_determiner_and_common_nouns_in_context():
    gazetteer = Gazetteer.read(ROOT / "resources" / "morph_cda" / "gazetteers" / "es.tsv")

    def sentence(*rows):
        lines = ["# text = x"] + [
            f"{i}\t{form}\t{form.lower()}\t{upos}\t_\t{feats or '_'}\t{head}\t{rel}\t_\t_"
            for i, (form, upos, feats, head, rel) in enumerate(rows, 1)
        ]
        (parsed,) = parse_conllu_string("\n".join(lines) + "\n\n")
        return parsed

    title = sentence(("El", "DET", "", 2, "det"), ("Doctor", "PROPN", "", 4, "nsubj"),
                     ("Pérez", "PROPN", "", 2, "flat"), ("llegó", "VERB", "", 0, "root"))
    assert gazetteer.lookup(title[1], title).form == "doctora"
    name = sentence(("Vino", "VERB", "", 0, "root"), ("Doctor", "PROPN", "", 1, "nsubj"))
    assert gazetteer.lookup(name[1], name) is None  # a capitalised word before no name stays a name
    # spaCy: "La vecina parecía ..." with vecina an adjective on the verb and La the verb's det
    adjective = sentence(("La", "DET", "Gender=Fem", 3, "det"),
                         ("vecina", "ADJ", "Gender=Fem|Number=Sing", 3, "amod"), ("parecía", "VERB", "", 0, "root"))
    assert gazetteer.lookup(adjective[1], adjective).form == "vecino"
    # a common-gender noun takes the gender its words show, before the parser's guess on the noun
    common = sentence(("La", "DET", "Gender=Fem", 2, "det"),
                      ("periodista", "NOUN", "Gender=Masc|Number=Sing", 4, "nsubj"),
                      ("está", "AUX", "", 4, "cop"), ("cansada", "ADJ", "Gender=Fem|Number=Sing", 0, "root"))
    assert gazetteer.lookup(common[1], common).gender == "Masc"  # currently feminine: becomes masculine
