"""The lexicon check: Hunspell analyses, gender and number agreement, candidate choice."""

import pickle
import shutil
import sys
from types import SimpleNamespace

import pytest

from cdaflow.morph_cda.hunspell import Hunspell, agrees, features_of, genderless

FS, MS = {"Gender": "Fem", "Number": "Sing"}, {"Gender": "Masc", "Number": "Sing"}
FP = {"Gender": "Fem", "Number": "Plur"}


def analysis(*fields):
    return frozenset(fields)


def test_agreement_with_and_without_gender_fields():
    inquiete = (analysis("st:inquiéter", "po:ipre"), analysis("st:inquiet", "po:adj", "is:fem", "is:sg"))
    assert agrees(inquiete, FS) and not agrees(inquiete, MS)  # the verb reading does not count
    assert agrees((analysis("st:malade", "po:adj", "is:epi", "is:sg"),), MS)
    assert agrees((analysis("st:heureux", "po:adj", "is:mas", "is:inv"),), {"Gender": "Masc", "Number": "Plur"})
    verb_only = (analysis("st:partir", "po:simp", "po:2sg"),)
    assert agrees(verb_only, FP) and not agrees(verb_only, FP, marks_gender=True)  # partisses
    assert agrees((analysis("st:acusada"),), FS)  # Spanish: known is all the dictionary says
    assert not agrees((), FS)


def test_features_of_a_form():
    assert features_of((analysis("st:fatiguer", "po:ppas", "is:mas", "is:sg"),)) == {"Gender": "Masc", "Number": "Sing"}
    assert features_of((analysis("st:furieux", "po:adj", "is:mas", "is:inv"),)) == {"Gender": "Masc"}
    assert genderless((analysis("st:jeune", "po:adj", "is:epi", "is:sg"),))
    assert not genderless((analysis("st:grand", "po:adj", "is:mas", "is:sg"),))


def test_find_needs_the_command_and_the_dictionaries(tmp_path):
    assert Hunspell.find(["fr"], directory=tmp_path) is None
    assert Hunspell.find(["fr"], command="no-such-hunspell-command") is None
    assert Hunspell.find([]) is None


@pytest.fixture(scope="module")
def french():
    checker = Hunspell.find(["fr"])
    if checker is None:
        pytest.skip("hunspell and hunspell-fr are not installed (apt-get install hunspell hunspell-fr)")
    return checker


def test_french_dictionary(french):
    found = french.analyses(["inquiète", "inquietes", "gentille", "gentile", "grand-mère", "de la"])
    assert agrees(found["inquiète"], FS) and agrees(found["gentille"], FS)
    assert found["inquietes"] == () and found["gentile"] == () and found["de la"] == ()  # unknown, or not one word
    assert features_of(found["grand-mère"], ("po:nom",)) == FS
    assert french.known(["inquiète", "inquietes"]) == {"inquiète"}


@pytest.mark.parametrize(
    ("dictionary", "known", "unknown"), [("es_ES", "navegadora", "inquieto_x"), ("it_IT", "gentile", "gentila")]
)
def test_other_dictionaries(dictionary, known, unknown):
    checker = Hunspell.find([dictionary])
    if checker is None:
        pytest.skip(f"hunspell {dictionary} is not installed")
    assert checker.known([known, unknown]) == {known}


# -- reading hunspell's output, and the process that gives it -----------------------------------
# A stand-in for ``hunspell -m``: "li" as hunspell-it prints it (a multi-byte flag cut to its first
# byte), "garbled" with an unreadable token, "crash" kills the process; a word starting with k is
# known. FAKE_HUNSPELL_STALL: never flushes (a tool whose output stays in its buffer).
FAKE = r'''#!{python}
import os, signal, sys
out = open(sys.stdout.fileno(), "wb", buffering=1 << 16, closefd=False)  # PYTHONUNBUFFERED or not
stall = os.environ.get("FAKE_HUNSPELL_STALL")
for raw in sys.stdin.buffer:
    word = raw.rstrip(b"\n")
    if word == b"li":
        out.write(b"li  st:l fl:\xc2\nli  st:lo fl:o\n\n")
    elif word == b"garbled":
        out.write(b"\xc2\xc2  st:garbled\n\n")
    elif word == b"crash":
        os.kill(os.getpid(), signal.SIGKILL)
    elif word.startswith(b"k"):
        out.write(word + b"  st:" + word + b"\n\n")
    elif word:
        out.write(word + b"\n\n")
    if not stall:
        out.flush()
out.flush()
'''


@pytest.fixture
def fake_hunspell(tmp_path):
    """The stand-in command, and a folder with a dictionary "xx" for it."""
    command = tmp_path / "hunspell"
    command.write_text(FAKE.format(python=sys.executable), encoding="utf-8")
    command.chmod(0o755)
    for suffix in (".dic", ".aff"):
        (tmp_path / f"xx{suffix}").write_text("", encoding="utf-8")
    return {"command": str(command), "directory": tmp_path}


both_interfaces = pytest.mark.parametrize(
    "persistent",
    [pytest.param(True, marks=pytest.mark.skipif(shutil.which("stdbuf") is None, reason="no stdbuf")), False],
    ids=["one-process", "one-run-per-batch"],
)


@both_interfaces
def test_bytes_that_are_not_utf8_spoil_only_their_field(fake_hunspell, persistent):
    with Hunspell.find(["xx"], persistent=persistent, **fake_hunspell) as checker:
        found = checker.analyses(["li", "garbled", "kilo", "dog"])
        assert found["li"] == (analysis("st:l"), analysis("st:lo", "fl:o"))  # the cut flag field dropped
        assert found["garbled"] == () and found["dog"] == ()  # its token unreadable: unknown
        assert found["kilo"] == (analysis("st:kilo"),)
        assert checker.unreadable == {"li": "fields dropped", "garbled": "read as unknown"}
        report = checker.report()
        assert "2 word(s)" in report and "dropped (li)" in report and "unknown (garbled)" in report


@both_interfaces
def test_a_word_that_kills_the_tool_reads_as_unknown(fake_hunspell, persistent, caplog):
    with Hunspell.find(["xx"], persistent=persistent, **fake_hunspell) as checker:
        words = [f"k{i}" for i in range(9)]
        found = checker.analyses([*words[:4], "crash", *words[4:]])
        assert found["crash"] == () and all(found[w] == (analysis(f"st:{w}"),) for w in words)
        assert checker.unreadable == {"crash": "read as unknown"}
        assert "crash" in caplog.text
        assert checker.known(["kappa", "dog"]) == {"kappa"}  # a new process takes over


def test_one_process_answers_every_batch_and_is_ended(fake_hunspell):
    if shutil.which("stdbuf") is None:
        pytest.skip("no stdbuf: one run per batch")
    checker = Hunspell.find(["xx"], **fake_hunspell)
    for batch in range(300):
        assert checker.known([f"k{batch}", f"d{batch}"]) == {f"k{batch}"}
    assert checker.known(["k0", "d0"]) == {"k0"}  # cached: no exchange
    assert checker.stats == {"processes": 1, "exchanges": 300, "words": 600}
    process = checker._pipe.process
    checker.close()
    assert process.poll() is not None and checker._pipe is None
    assert checker.known(["kx"]) == {"kx"} and checker.stats["processes"] == 2
    copy = pickle.loads(pickle.dumps(checker))  # a copy starts its own process
    assert copy.known(["ky"]) == {"ky"} and copy._pipe.process.pid != checker._pipe.process.pid
    copy.close()
    checker.close()


def test_a_tool_that_does_not_flush_falls_back_to_one_run_per_batch(fake_hunspell, monkeypatch, caplog):
    if shutil.which("stdbuf") is None:
        pytest.skip("no stdbuf: one run per batch already")
    monkeypatch.setenv("FAKE_HUNSPELL_STALL", "1")  # stdbuf cannot line-buffer a Python script
    with Hunspell.find(["xx"], timeout=0.5, **fake_hunspell) as checker:
        assert checker.known(["kilo", "dog"]) == {"kilo"}
        assert checker.known(["kappa"]) == {"kappa"}
        assert not checker._persistent and checker._pipe is None
    assert "one run per batch" in caplog.text


def test_words_not_sent_and_a_bounded_cache(fake_hunspell):
    with Hunspell.find(["xx"], cache_size=8, **fake_hunspell) as checker:
        odd = ["k k", "k\x00", "k\ud800", "", "kqxzqxzcdaflowa", "k" * 300]  # none is one line of UTF-8
        assert checker.analyses(odd) == {w: () for w in odd} and checker.stats["exchanges"] == 0
        words = [f"k{i}" for i in range(20)]
        assert checker.known(words) == set(words)  # a batch larger than the cache is answered whole
        assert len(checker._cache) <= 8
        assert checker.known(words[:3]) == set(words[:3])


def test_italian_li(request):
    """hunspell-it prints a multi-byte flag of *li*, *ci*, *di* cut to its first byte (0xC2)."""
    checker = Hunspell.find(["it_IT"])
    if checker is None:
        pytest.skip("hunspell it_IT is not installed")
    request.addfinalizer(checker.close)
    found = checker.analyses(["li", "ci", "gentile", "gentila"])
    assert analysis("st:lo", "fl:o") in found["li"] and analysis("st:l") in found["li"]
    assert found["gentile"] and found["gentila"] == () and found["ci"]
    assert set(checker.unreadable) == {"li", "ci"} and "dropped" in checker.report()


def test_prefixed_readings_are_analyses(french):
    """An analysis with an affix's field before the stem (es_ES *anotación*: ``a st:notación``)
    is read like any other; Spanish words known only that way were unknown before."""
    spanish = Hunspell.find(["es_ES"])
    if spanish is None:
        pytest.skip("hunspell es_ES is not installed")
    with spanish:
        assert spanish.known(["anotación", "autobuses", "contexto", "anotacionx"]) == {
            "anotación", "autobuses", "contexto"}
    assert "dp:le|la+" in french.analyses(["l'homme"])["l'homme"][0]


def test_the_cli_reports_unreadable_analyses_once(fake_hunspell, capsys):
    from cdaflow.commands.cda import _lexicon_report

    checker = Hunspell.find(["xx"], **fake_hunspell)
    generator = SimpleNamespace(hunspell=checker)
    with _lexicon_report(generator):
        checker.known(["li", "dog"])
        checker.known(["li", "kilo"])
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not UTF-8" in err and "dropped (li)" in err
    assert checker._pipe is None  # ended with the run
