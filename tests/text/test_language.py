"""Study A's language files: each validates, the code reads them, a broken or missing one is named."""

import pytest

from cdaflow.text import language as languages
from cdaflow.text.language import LanguageError, available, load

PROJECT_FILES = languages.LANGUAGES_DIR


def test_every_language_file_validates():
    assert set(available()) >= {"es", "fr", "it", "he"}
    for code in available():
        language = load(code)
        assert language.code == code and language.be_lemmas and language.plurals
        assert language.source == PROJECT_FILES / f"{code}.yaml"


def test_articles_and_contractions_are_read():
    es, fr, it = load("es"), load("fr"), load("it")
    assert es.article("Fem", "Plur") == "las" and es.article_tag("El") == ("Gender=Masc", "Number=Sing")
    assert fr.article_tag("les") is None  # both genders: no gender to read off
    assert it.article("Masc", "Sing") == "il" and it.article_tag("gli") == ("Gender=Masc", "Number=Plur")
    assert es.fused["del"] == ("de", "el") and it.contract("Di", "la") == "della"
    assert load("he").article("Masc", "Sing") is None


@pytest.mark.parametrize(
    ("code", "form", "gender", "following", "upos", "expected"),
    [
        ("fr", "le", "Masc", "acteur", None, "l'"),
        ("fr", "la", "Fem", "héroïne", None, "l'"),
        ("fr", "le", "Masc", "héros", None, "le"),  # h aspiré
        ("fr", "ce", "Masc", "homme", "NOUN", "cet"),
        ("fr", "ma", "Fem", "amie", "NOUN", "mon"),
        ("fr", "ma", "Fem", "ancienne", "ADJ", "mon"),
        ("fr", "nouveau", "Masc", "élève", "NOUN", "nouvel"),
        ("fr", "l'", "Fem", "femme", "NOUN", "la"),  # an elided form back before a consonant
        ("fr", "vieil", "Masc", "paysan", "NOUN", "vieux"),
        ("fr", "mon", "Masc", "oncle", "NOUN", "mon"),
        ("fr", "bel", "Masc", "et", "CCONJ", "beau"),  # pre-vocalic only before its noun (beau et grand)
        ("fr", "le", "Masc", "a", "VERB", "l'"),  # elision before any word (il l'a vu)
        ("es", "la", "Fem", "ama", "NOUN", "el"),
        ("es", "una", "Fem", "ama", "NOUN", "un"),
        ("es", "la", "Fem", "alta", "ADJ", "la"),  # only before the noun
        ("es", "el", "Fem", "señora", "NOUN", "la"),
        ("it", "il", "Masc", "studente", None, "lo"),
        ("it", "il", "Masc", "amico", None, "l'"),
        ("it", "una", "Fem", "amica", None, "un'"),
    ],
)
def test_alternations(code, form, gender, following, upos, expected):
    assert load(code).alternate(form, gender, following, upos) == expected


def test_pronouns_and_their_roles():
    fr, es, it = load("fr"), load("es"), load("it")
    pronoun, gender = fr.pronoun("Il", "nsubj")
    assert gender == "Masc" and pronoun.forms["Fem"] == "elle"
    assert fr.pronoun("il", "obj") is None and fr.pronoun("lui", "iobj") is None
    assert fr.pronoun("elle", "obl")[0].forms["Masc"] == "lui"  # stressed: avec elle -> avec lui
    assert fr.pronoun("elles", "nsubj")[0].forms["Masc"] == "ils"
    assert es.pronoun("nosotras", "nsubj")[1] == "Fem"
    assert it.pronoun("loro", "nsubj")[1] is None  # common: the form stays, its agreement changes
    assert load("he").pronoun("הוא", "cop") is None  # the copula of a nominal sentence


def test_gender_endings_give_candidates():
    fr = load("fr")
    assert fr.gender_candidates("inquiet", "Masc", "Fem", "Sing")[:2] == ["inquiète", "inquiette"]
    assert "gentille" in fr.gender_candidates("gentil", "Masc", "Fem", "Sing")
    assert fr.gender_candidates("nerveuses", "Fem", "Masc", "Plur")[0] == "nerveux"
    assert "parties" in fr.gender_candidates("partis", "Masc", "Fem", "Plur")
    assert fr.gender_candidates("grand", "Masc", "Masc", "Sing") == []
    assert fr.full_form("cet", "Masc") == "ce" and fr.full_form("l'", "Fem") == "la"
    assert fr.full_form("mon", "Masc") == "mon"  # masculine: no full form but itself


def test_regular_plurals_come_from_the_file():
    assert load("es").plural("camión", "Masc") == "camiones" and load("fr").plural("neveu", "Masc") == "neveux"
    assert load("it").plural("amica", "Fem") == "amiche" and load("it").plural("amico", "Masc") == "amici"


def _copy(tmp_path, code="it", new="xx", edit=None):
    text = (PROJECT_FILES / f"{code}.yaml").read_text(encoding="utf-8").replace(f"code: {code}", f"code: {new}")
    (tmp_path / f"{new}.yaml").write_text(edit(text) if edit else text, encoding="utf-8")
    return tmp_path


def test_a_new_language_is_one_file(tmp_path):
    folder = _copy(tmp_path)
    assert available(folder) == ("xx",)
    stub = load("xx", folder)
    assert stub.code == "xx" and stub.contract("di", "la") == "della"


def test_missing_and_broken_files_are_named(tmp_path):
    with pytest.raises(LanguageError, match=r"xx.yaml: no Study A language file for 'xx' \(available: es, fr, he, it"):
        load("xx")
    folder = _copy(tmp_path, edit=lambda t: t.replace("be_lemmas:", "be_lemas:"))
    with pytest.raises(LanguageError) as error:
        load("xx", folder)
    message = str(error.value)
    assert "\n" not in message and message.startswith(f"{folder / 'xx.yaml'}: ")
    assert "'be_lemmas' is a required property" in message or "unknown key 'be_lemas'" in message
    folder = _copy(tmp_path, "fr", "yy", edit=lambda t: t.replace('["on", onne]', "[on, onne]"))
    with pytest.raises(LanguageError, match=r"yy.yaml: agent_suffixes.3.0: True is not of type 'string'"):
        load("yy", folder)  # YAML reads a bare on as true
    folder = _copy(tmp_path, "es", "zz", edit=lambda t: t.replace("code: zz", "code: es"))
    with pytest.raises(LanguageError, match=r"zz.yaml: code: 'es' differs from the file's name"):
        load("zz", folder)
    folder = _copy(tmp_path, "es", "ww", edit=lambda t: t.replace("['z$', 'ces']", "['z(', 'ces']"))
    with pytest.raises(LanguageError, match=r"ww.yaml: plurals.1: not a regular expression"):
        load("ww", folder)


def test_the_config_check_reads_each_configured_language(monkeypatch):
    from cdaflow import config as cdaflow_config

    monkeypatch.chdir(languages.LANGUAGES_DIR.parents[2])
    config = cdaflow_config.load("config.yaml")
    spec = next(iter(config["studies"]["morph_cda"]["languages"].values()))
    config["studies"]["morph_cda"]["languages"] = {"xx": spec}
    with pytest.raises(cdaflow_config.ConfigError, match=r"studies.morph_cda.languages.xx: .*no Study A language"):
        cdaflow_config.validate(config, source="test")


def test_a_language_with_corpora_but_no_probes_stops_at_start_up(tmp_path, monkeypatch):
    from cdaflow import config as cdaflow_config

    monkeypatch.chdir(languages.LANGUAGES_DIR.parents[2])
    config = cdaflow_config.load("config.yaml")
    spec = config["studies"]["morph_cda"]["languages"]["es"]
    config["studies"]["morph_cda"]["languages"] = {"es": spec}
    assert spec["corpora"]  # the demo augments its corpora: probes are needed
    text = (PROJECT_FILES / "es.yaml").read_text(encoding="utf-8")

    def check(case, edited):
        folder = tmp_path / case  # a folder per case: language files are cached by folder
        folder.mkdir()
        (folder / "es.yaml").write_text(edited, encoding="utf-8")
        # the demo's French corpus still needs its language file (the spaCy pipeline it names)
        (folder / "fr.yaml").write_text((PROJECT_FILES / "fr.yaml").read_text(encoding="utf-8"), encoding="utf-8")
        monkeypatch.setattr(languages, "LANGUAGES_DIR", folder)
        cdaflow_config.validate(config, source="test")

    ConfigError = cdaflow_config.ConfigError
    with pytest.raises(ConfigError, match=r"languages.es.corpora: .*needs probe phrases.*es.yaml names none"):
        check("none", text.replace("probes: resources/morph_cda/probes/es.yaml", "probes: null"))
    with pytest.raises(ConfigError, match=r"es.yaml: probes: no such file 'resources/morph_cda/probes/xx.yaml'"):
        check("missing", text.replace("probes/es.yaml", "probes/xx.yaml"))
    check("named", text)
