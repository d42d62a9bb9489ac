"""Hebrew raw text: hspell's prefix splits as the UD Hebrew treebank writes them, final letters, and
the one-line refusal without hspell (src/cdaflow/text/hebrew.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cdaflow.text import language as languages
from cdaflow.text.hebrew import choose
from cdaflow.text.hspell import Reading, hspell_missing
from cdaflow.text.language import spell_final_letters

ROOT = Path(__file__).resolve().parents[2]
HTB_TEST = ROOT.parent / "shared" / "data" / "ud-treebanks-v2.2" / "UD_Hebrew-HTB" / "he_htb-ud-test.conllu"
needs_hspell = pytest.mark.skipif(
    shutil.which("hspell") is None or shutil.which("stdbuf") is None,
    reason="hspell is not installed (apt-get install hspell)",
)
PARSER = ROOT / "results" / "morph_cda" / "he" / "parser"  # snakemake results/morph_cda/he/parser
FINALS = languages.load("he").multiword["final_letters"]


@pytest.fixture(scope="module")
def segmenter():
    from cdaflow.text.hebrew import Segmenter

    segmenter = Segmenter.for_language("he")
    yield segmenter
    segmenter.close()


# Ten everyday sentences, written for this test; the words as HTB writes them (ה_: the article
# ב/כ/ל swallow, written only where the next word shows it: בבית הגדול).
SENTENCES = [
    ("ובבית הגדול גרה הילדה.", [["ו", "ב", "ה_", "בית"], ["ה", "גדול"], ["גרה"], ["ה", "ילדה"], ["."]]),
    ("לילדה יש אח קטן.", [["ל", "ילדה"], ["יש"], ["אח"], ["קטן"], ["."]]),
    ("שמעתי שהמורה חולה.", [["שמעתי"], ["ש", "ה", "מורה"], ["חולה"], ["."]]),
    ("כשהרופאה הגיעה, כולם שתקו.", [["כש", "ה", "רופאה"], ["הגיעה"], [","], ["כולם"], ["שתקו"], ["."]]),
    ("הסטודנטים והסטודנטיות למדו בספרייה.",
     [["ה", "סטודנטים"], ["ו", "ה", "סטודנטיות"], ["למדו"], ["ב", "ספרייה"], ["."]]),
    ("המלצר הביא לנו את החשבון.", [["ה", "מלצר"], ["הביא"], ["לנו", "_אנחנו"], ["את"], ["ה", "חשבון"], ["."]]),
    ("השכנה שלי רוצה להיות שחקנית.",
     [["ה", "שכנה"], ["של_", "_אני"], ["רוצה"], ["להיות"], ["שחקנית"], ["."]]),
    ("הנהג עצר ליד התחנה במשך חמש דקות.",
     [["ה", "נהג"], ["עצר"], ["ליד"], ["ה", "תחנה"], ["במשך"], ["חמש"], ["דקות"], ["."]]),
    ("מהכיתה יצא התלמיד החדש.", [["מ", "ה", "כיתה"], ["יצא"], ["ה", "תלמיד"], ["ה", "חדש"], ["."]]),
    ("כאשר האחות נכנסה, ב50 אנשים חיכו.", [["כאשר"], ["ה", "אחות"], ["נכנסה"], [","], ["ב", "50"], ["אנשים"],
                                           ["חיכו"], ["."]]),
]


@needs_hspell
@pytest.mark.parametrize(("text", "expected"), SENTENCES, ids=[str(i) for i in range(1, len(SENTENCES) + 1)])
def test_everyday_sentences_are_split_as_htb_splits_them(segmenter, text, expected):
    segments = segmenter.segment(text)
    assert [list(s.words) for s in segments] == expected
    # the surface tokens and spaces give the text back
    assert "".join(s.surface + (" " if s.space_after else "") for s in segments).strip() == text


@needs_hspell
def test_a_quantifier_after_a_prefix_and_an_arabic_name(segmenter):
    def split(text):
        return [list(s.words) for s in segmenter.segment(text)]

    # כל before a noun or אחד takes its prefix off (hspell also reads שכל whole: "intellect", "bereaved")
    assert split("אמרתי שכל ילד יקבל ספר.")[1] == ["ש", "כל"]
    assert split("הוא אמר שכל אחד יבוא.")[2] == ["ש", "כל"]
    assert split("יש לו שכל ישר.")[2] == ["שכל"]  # before an adjective: common sense
    assert split("יש לו שכל.")[2] == ["שכל"]
    # after the Arabic article and its hyphen, a name stays whole (not ו + אד)
    assert split("הכביש לבאב אל-ואד נסגר.")[2:5] == [["אל"], ["-"], ["ואד"]]


@needs_hspell
def test_second_person_and_doubled_possessive_suffixes(segmenter):
    def split(text):
        return [list(s.words) for s in segmenter.segment(text)]

    # the second person plural's suffix is split off as the third person's is (HTB: _של_ _אתם)
    assert split("אתם רוצים סבסוד למחשבותיכם.")[3] == ["ל", "מחשבה_", "_של_", "_אתם"]
    assert split("עליכם לפנות לקרן.")[0] == ["עליכם", "_אתם"]
    # before של a possessive suffix doubles a possessor: the noun, not the verb "you invited"
    assert split("ביטלו את הזמנתם של העובדים.")[2] == ["הזמנה_", "_של_", "_הם"]
    assert split("הזמנתם אותו?")[0] == ["הזמנתם"]


@needs_hspell
def test_a_quoted_word_is_a_name_but_for_its_article_and_a_relativizer(segmenter):
    def split(text):
        return [list(s.words) for s in segmenter.segment(text)]

    # as HTB writes them: "בצלם" (B'Tselem) whole, not ב + צלם or בצל + their; "הארץ" (the paper) ה + ארץ
    assert split('"בצלם" נוהג להפיץ דפי מידע.')[1] == ["בצלם"]
    assert split('הכתב של "הארץ" דיווח.')[3] == ["ה", "ארץ"]
    # a relativizer opens a quoted clause ("משראה": from when he sees), split as always
    assert split('רק "משראה" שיש צורך.')[2] != ["משראה"]
    # not quoted: split as always
    assert split("בצלם אלוהים.")[0] == ["ב", "צלם"]


@needs_hspell
def test_agreement_with_the_treebank_sample():
    """Word-level agreement with HTB's own segmentation on the sample's test file (not used to tune
    the rules: dev was). Measured 91.7 % (no split at all: 67.7 %); the bound leaves room for a
    different hspell dictionary version."""
    if not HTB_TEST.is_file():
        pytest.skip(f"the UD Hebrew sample is absent ({HTB_TEST})")
    import importlib.util

    spec = importlib.util.spec_from_file_location("hebrew_segmentation", ROOT / "benchmarks" / "hebrew_segmentation.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    from cdaflow.text.hebrew import Segmenter

    segmenter = Segmenter.for_language("he")
    try:
        result = module.evaluate(HTB_TEST, segmenter)
    finally:
        segmenter.close()
    assert result["tokens"] > 8000
    assert result["accuracy"] >= 0.89
    assert result["split_accuracy"] >= 0.75  # the tokens HTB splits: the segmenter must split most


def test_choice_rules_without_hspell():
    whole_noun = Reading("", "הלך", (("הלך", ("ע", "ז", "יחיד")), ("הלך", ("פ", "ז", "3", "יחיד", "עבר"))))
    split = Reading("ה", "לך", (("לי", ("x",)),))
    assert choose([whole_noun, split]) is None  # a whole word hspell knows as a noun stays whole
    whole_verb = Reading("", "הזרים", (("הזרים", ("פ", "ז", "3", "יחיד", "עבר")),))
    noun = Reading("ה", "זרים", (("זר", ("ע", "ז", "רבים")),))
    assert choose([whole_verb, noun], "", "ה") == noun  # the article + a noun beats a verb
    rare_noun = Reading("", "השכנה", (("השכנה", ("ע", "נ", "יחיד")),))
    neighbour = Reading("ה", "שכנה", (("שכנה", ("ע", "נ", "יחיד")),))
    assert choose([rare_noun, neighbour], "", "ה") == neighbour  # ... and a noun hspell knows whole
    verb = Reading("", "שמעתי", (("שמע", ("פ", "1", "יחיד", "עבר")),))
    assert choose([verb, Reading("ש", "מעתי", (("מעה", ("ע", "נ", "יחיד")),))], "", "ה") is None  # not ש + מעתי
    short, long = Reading("ו", "לכן", (("x", ("x",)),)), Reading("ול", "כן", (("כן", ("ע",)),))
    assert choose([long, short]) == short  # the shortest prefix
    infinitive = Reading("ול", "היות", (("היה", ("פ", "מקור")),))
    assert choose([infinitive], "ל") == Reading("ו", "להיות", infinitive.analyses)  # ל stays on the infinitive
    assert choose([Reading("ל", "היות", infinitive.analyses)], "ל") is None


def test_the_article_after_a_prefix_beats_a_noun_that_begins_with_he():
    # והמלכה: ו + ה + מלכה ("and the queen"), not ו + המלכה ("and the coronation"), as השכנה = ה + שכנה
    coronation = Reading("ו", "המלכה", (("המלכה", ("ע", "נ", "יחיד")),))
    queen = Reading("וה", "מלכה", (("מלכה", ("ע", "נ", "יחיד")),))
    assert choose([coronation, queen], "ל", "ה") == queen
    # a verb's noun with no article reading of its rest stays (והחלטה = ו + החלטה)
    decision = Reading("ו", "החלטה", (("החלטה", ("ע", "נ", "יחיד")),))
    assert choose([decision], "ל", "ה") == decision


def test_a_relative_after_a_comma_or_a_noun_is_split_off():
    # השחקן, שחזר: ש + חזר, not the whole verb "restored"; השכן שגר: ש + גר
    restored = Reading("", "שחזר", (("שחזר", ("פ", "ז", "3", "יחיד", "עבר")),))
    returned = Reading("ש", "חזר", (("חזר", ("פ", "ז", "3", "יחיד", "עבר")),))
    assert choose([restored, returned]) is None
    assert choose([restored, returned], "ל", "ה", frozenset({"ש", "כש"})) == returned
    launch = Reading("", "שגר", (("שגר", ("ע", "ז", "יחיד")),))
    lives = Reading("ש", "גר", (("גר", ("פ", "ז", "3", "יחיד", "עבר")), ("גר", ("פ", "ז", "יחיד", "הווה"))))
    assert choose([launch, lives], "ל", "ה", frozenset({"ש"})) is None  # after a comma: a whole noun stays
    assert choose([launch, lives], "ל", "ה", frozenset({"ש"}), frozenset({("Masc", "Sing")})) == lives
    assert choose([launch, lives], "ל", "ה", frozenset({"ש"}), frozenset({("Fem", "Plur")})) is None
    # הילדה שמחה: the whole word agrees with the noun, it stays
    glad = Reading("", "שמחה", (("שמח", ("פ", "נ", "3", "יחיד", "עבר")), ("שמחה", ("ע", "נ", "יחיד"))))
    wiped = Reading("ש", "מחה", (("מחה", ("פ", "ז", "3", "יחיד", "עבר")),))
    assert choose([glad, wiped], "ל", "ה", frozenset({"ש"}), frozenset({("Fem", "Sing")})) is None


def test_a_possessed_noun_beats_a_prefix_on_a_function_word():
    # לבם: "their heart" (לב + ם), not ל + בם ("in them")
    heart = Reading("", "לבם", (("לב", ("ע", "ז", "יחיד", "כינוי/ז", "3", "רבים")),))
    assert choose([heart, Reading("ל", "בם", (("בי", ("x",)),))], "ל", "ה") is None
    # a stem with a content reading still splits off (שהייתה = ש + הייתה)
    stay = Reading("", "שהייתה", (("שהייה", ("ע", "נ", "יחיד", "כינוי/נ", "3", "יחיד")),))
    was = Reading("ש", "הייתה", (("היה", ("פ", "נ", "3", "יחיד", "עבר")),))
    assert choose([stay, was], "ל", "ה") == was


def test_hspell_corrects_a_small_parsers_guesses():
    """A person noun the parser took for a name or an adverb is a noun with hspell's gender; a word
    hspell also reads as a function word, or a name it knows, stays as tagged."""
    from cdaflow.text.hebrew import _correct_tags

    waiter = {"form": "מלצר", "upos": "PROPN", "xpos": None, "feats": None}
    _correct_tags(waiter, [("מלצר", ("פ", "ז", "3", "יחיד", "עבר")), ("מלצר", ("ע", "ז", "יחיד"))])
    assert waiter["upos"] == "NOUN" and waiter["feats"] == {"Gender": "Masc", "Number": "Sing"}
    tired = {"form": "עייף", "upos": "NOUN", "xpos": None, "feats": {"Gender": "Fem"}}
    _correct_tags(tired, [("עייף", ("ת", "ז", "יחיד")), ("עייף", ("פ", "ז", "יחיד", "הווה"))])
    assert tired["upos"] == "ADJ" and tired["feats"] == {"Gender": "Masc", "Number": "Sing"}
    teacher = {"form": "מורה", "upos": "NOUN", "xpos": None, "feats": {"Gender": "Fem", "Number": "Sing"}}
    _correct_tags(teacher, [("מורה", ("ע", "ז", "יחיד")), ("מורה", ("ע", "נ", "יחיד"))])
    assert teacher["feats"] == {"Gender": "Fem", "Number": "Sing"}  # both genders: the parser's stays
    yes = {"form": "כן", "upos": "ADV", "xpos": None, "feats": None}
    _correct_tags(yes, [("שונות", ("x",)), ("כן", ("ת", "ז", "יחיד"))])
    assert yes["upos"] == "ADV"
    his_mother = {"form": "אמו", "upos": "NOUN", "xpos": None, "feats": None}
    _correct_tags(his_mother, [("אם", ("ע", "נ", "יחיד", "כינוי/ז", "3", "יחיד"))])
    assert his_mother["feats"] == {"Gender": "Fem", "Number": "Sing"}  # not the possessor's
    # לכיתה: the small parser's participle "כיתה" is a noun hspell knows only as a noun
    classroom = {"form": "כיתה", "upos": "VERB", "xpos": None, "feats": {"Gender": "Fem", "VerbForm": "Part"}}
    _correct_tags(classroom, [("כיתה", ("ע", "נ", "יחיד"))])
    assert classroom["upos"] == "NOUN"
    works = {"form": "עובד", "upos": "VERB", "xpos": None, "feats": {"Gender": "Masc", "VerbForm": "Part"}}
    _correct_tags(works, [("עובד", ("ע", "ז", "יחיד")), ("עבד", ("פ", "ז", "יחיד", "הווה"))])
    assert works["upos"] == "VERB"  # a verb reading too: the parser's stays
    # הלכה הביתה: an "adjective" hspell knows only as a function word is an adverb, with no gender to change
    home = {"form": "הביתה", "upos": "ADJ", "xpos": None, "feats": {"Gender": "Fem", "Number": "Sing"}}
    _correct_tags(home, [("שונות", ("x",))])
    assert (home["upos"], home["feats"]) == ("ADV", None)


def test_final_letters():
    assert spell_final_letters("עייףה", FINALS) == "עייפה"  # an ending added after a final letter
    assert spell_final_letters("ילדימ", FINALS) == "ילדים"
    assert spell_final_letters("ותלמידות", FINALS) == "ותלמידות"
    assert spell_final_letters("חברים ונשימ", FINALS) == "חברים ונשים"
    assert spell_final_letters('ח"כ', FINALS) == 'ח"כ'  # an acronym keeps its letter
    assert spell_final_letters("כ", FINALS) == "כ"  # a one-letter word (a prefix) too


def test_rejoining_a_split_word_after_its_noun_changed():
    """The counterfactual's words are glued back over the surface token (surface.py, he.yaml's
    multiword): the swallowed article stays unwritten."""
    from cdaflow.morph_cda import surface

    # public since this round (another change renames it); either name
    rebuild = getattr(surface, "rebuild_multiword", None) or surface._rebuild_multiword
    he = languages.load("he")
    assert rebuild(he, "ובבית", ["ו", "ב", "ה_", "בית"], ["ו", "ב", "ה_", "בית"]) == ["ובבית"]
    assert rebuild(he, "לילדה", ["ל", "ילדה"], ["ל", "ילד"]) == ["לילד"]
    assert rebuild(he, "כשהרופאה", ["כש", "ה", "רופאה"], ["כש", "ה", "רופא"]) == ["כשהרופא"]
    assert rebuild(he, "לתלמידה", ["ל", "ה_", "תלמידה"], ["ל", "ה_", "תלמיד"]) == ["לתלמיד"]


def test_missing_hspell_is_one_line(tmp_path, monkeypatch, capsys):
    from cdaflow.cli import main
    from cdaflow.text.parsing import segmenter_refusal

    assert hspell_missing("no-such-hspell") == (
        "Hebrew raw text is segmented with hspell, which is not installed: apt-get install hspell"
    )
    model = tmp_path / "model"  # the command checks the folder's files before reading the input
    (model / "mrf").mkdir(parents=True)
    (model / "reinflection").mkdir()
    (model / "cda.json").write_text('{"lang": "he", "log_alpha": 0.0}')
    (model / "gazetteer.tsv").write_text("masculine\tfeminine\n")
    monkeypatch.setenv("PATH", str(tmp_path / "empty-path"))
    assert segmenter_refusal("he") is not None and segmenter_refusal("es") is None
    monkeypatch.setattr("sys.stdin", _Stdin("הילד עייף.\n"))
    assert main(["cda", "--lang", "he", "--model", str(model)]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "apt-get install hspell" in err[0], err


HEBREW = """# text = ובבית גרה ילדה.
1-4\tובבית\t_\t_\t_\t_\t_\t_\t_\t_
1\tו\tו\tCCONJ\t_\t_\t5\tcc\t_\t_
2\tב\tב\tADP\t_\t_\t4\tcase\t_\t_
3\tה_\tה\tDET\t_\tPronType=Art\t4\tdet\t_\t_
4\tבית\tבית\tNOUN\t_\tGender=Masc|Number=Sing\t5\tobl\t_\t_
5\tגרה\tגר\tVERB\t_\tGender=Fem|Number=Sing\t0\troot\t_\t_
6\tילדה\tילדה\tNOUN\t_\tGender=Fem|Number=Sing\t5\tnsubj\t_\tSpaceAfter=No
7\t.\t.\tPUNCT\t_\t_\t5\tpunct\t_\t_

"""


def test_the_hebrew_pipeline_learns_the_treebank_words(tmp_path):
    """Hebrew's parser is trained on the syntactic words (the segmenter's output), Italian's on the
    surface tokens."""
    from cdaflow.morph_cda.parser_training import segmented_language, treebank_docs

    assert segmented_language("he") and not segmented_language("it")
    path = tmp_path / "he.conllu"
    path.write_text(HEBREW, encoding="utf-8")
    (doc,) = treebank_docs([path], "he")
    assert [t.text for t in doc] == ["ו", "ב", "ה_", "בית", "גרה", "ילדה", "."]


@needs_hspell
@pytest.mark.skipif(not (PARSER / "config.cfg").is_file(), reason=f"no trained Hebrew pipeline at {PARSER}")
def test_raw_hebrew_is_parsed_into_multiword_tokens():
    from cdaflow.text.parsing import get_parser, parse_text_file

    parser = get_parser("spacy", "he", model=str(PARSER))
    (sentence,) = parse_text_file(parser, ["ובבית הגדול גרה הילדה."], sent_id_prefix="t")
    assert sentence.metadata["text"] == "ובבית הגדול גרה הילדה."
    assert [t["form"] for t in sentence if isinstance(t["id"], tuple)] == ["ובבית", "הגדול", "הילדה"]
    tags = {t["form"]: t["upos"] for t in sentence if isinstance(t["id"], int)}
    assert tags["ו"] == "CCONJ" and tags["ב"] == "ADP" and tags["ה_"] == "DET"  # the prefixes as HTB tags them


class _Stdin:
    """A stdin that is neither a terminal nor a pipe the command would wait on."""

    def __init__(self, text: str):
        import io

        self.buffer = io.BytesIO(text.encode("utf-8"))

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise OSError("no file descriptor")

    def __getattr__(self, name):
        import io

        return getattr(io.TextIOWrapper(self.buffer, encoding="utf-8"), name)


def test_a_participle_hspell_knows_only_as_a_past_verb_is_finite():
    from cdaflow.text.hebrew import _correct_tags

    # ושמחו: the parser's participle; hspell: the past plural of both genders (or an imperative)
    glad = {"form": "שמחו", "upos": "VERB", "xpos": None,
            "feats": {"Gender": "Masc", "Number": "Plur", "Person": "1,2,3", "VerbForm": "Part"}}
    _correct_tags(glad, [("שמח", ("פ", "ז", "2", "רבים", "ציווי")), ("שמח", ("פ", "ז", "3", "רבים", "עבר")),
                         ("שמח", ("פ", "נ", "3", "רבים", "עבר"))])
    assert glad["feats"]["Tense"] == "Past" and "VerbForm" not in glad["feats"]
    assert glad["feats"]["Person"] == "3"
    # a participle hspell reads as one stays
    works = {"form": "עובד", "upos": "VERB", "xpos": None, "feats": {"Number": "Sing", "VerbForm": "Part"}}
    _correct_tags(works, [("עבד", ("פ", "ז", "יחיד", "הווה")), ("עובד", ("פ", "ז", "3", "יחיד", "עבר"))])
    assert works["feats"]["VerbForm"] == "Part"
