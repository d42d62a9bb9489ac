"""Tagging segments as a stream: order, blank texts, and input read only as far as needed."""

import io
import json

from cdaflow.cli import main
from cdaflow.io.conllu import new_sentence
from cdaflow.regender.segments import tag_texts
from cdaflow.regender.tagset import TagMap


class _LazyTagger:
    """A parser stand-in: one sentence per non-blank text, every word an adjective, read lazily."""

    name = "lazy"
    lang = "es"

    def __init__(self) -> None:
        self.dependencies: list[bool] = []

    def parse(self, texts, *, batch_size=64, sent_id_prefix="s", line_numbers=None, dependencies=True):
        self.dependencies.append(dependencies)
        for n, text in enumerate(texts, 1):
            forms = text.split()
            if not forms:
                continue  # a blank text gives no sentence, as with spaCy
            tokens = [{"id": i, "form": f, "lemma": f.lower(), "upos": "ADJ", "feats": {"Gender": "Masc"}}
                      for i, f in enumerate(forms, 1)]
            yield new_sentence(tokens, {"sent_id": f"{sent_id_prefix}-{n}-1", "text": text})

    def reparse(self, sentences, *, batch_size=64):
        return iter(sentences)


def test_tag_texts_keeps_order_across_blank_texts_and_skips_dependencies():
    tagger = _LazyTagger()
    segments = list(tag_texts(tagger, ["Listo ya", "   ", "", "Cansado  hoy"], TagMap.load()))
    assert [s.text for s in segments] == ["Listo ya", "Cansado hoy"]
    assert [s.tokens for s in segments] == [("Listo", "ya"), ("Cansado", "hoy")]
    assert tagger.dependencies == [False]  # the rules read no dependency tree


def test_regender_streams_its_input(monkeypatch, capsys):
    # Each record is written before the input is read much further (no whole-file list).
    read = []

    def lines():
        for n in range(1, 201):
            read.append(n)
            yield n, f"Cansado {n}"

    written_after: list[int] = []

    class Recorder(io.StringIO):
        def write(self, text):
            if text.strip():
                written_after.append(len(read))
            return super().write(text)

    recorder = Recorder()
    monkeypatch.setattr("cdaflow.commands.common.numbered_lines", lambda path, **options: lines())
    monkeypatch.setattr("cdaflow.text.parsing.get_parser", lambda *a, **k: _LazyTagger())
    monkeypatch.setattr("sys.stdout", recorder)
    assert main(["regender", "--lang", "es"]) == 0
    records = [json.loads(line) for line in recorder.getvalue().splitlines()]
    assert [r["original"] for r in records] == [f"Cansado {n}" for n in range(1, 201)]
    assert written_after[0] <= 2
    assert all(after - n <= 2 for n, after in enumerate(written_after, 1))
