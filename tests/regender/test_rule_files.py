"""Reading a rules folder: the errors name the file, line and field; the sequence pattern grammar."""

import re

import pytest

from cdaflow.regender.rule_files import pattern_regex, read_rule_folder


def test_bad_rule_files_name_file_line_and_field(tmp_path):
    def load():
        return read_rule_folder(tmp_path, sequences="paper")

    (tmp_path / "rules.yaml").write_text("clitics: {lo: la}\n")
    (tmp_path / "sequences.tsv").write_text("sequence\tlabel\tcategory\nPPC-Vfin-FS\tX\tPPC\n")
    with pytest.raises(ValueError, match=r"sequences.tsv:2: field label"):
        load()
    (tmp_path / "sequences.tsv").write_text("sequence\tlabel\tcategory\nPPC-Vfin-FS\tG\tNOUN\n")
    with pytest.raises(ValueError, match=r"sequences.tsv:2: field category"):
        load()
    (tmp_path / "sequences.tsv").write_text("sequence\tlabel\tcategory\nA-B\tG\tPPC\nA-B\tN\tPPC\n")
    with pytest.raises(ValueError, match="listed twice"):
        load()
    (tmp_path / "sequences.tsv").write_text("sequence\tlabel\tcategory\nFS*-ADJ-FS\tG\tADJ\n")
    with pytest.raises(ValueError, match=r"sequences.tsv:2: field sequence: .*patterns belong in the extension"):
        load()
    (tmp_path / "sequences.tsv").write_text("sequence\tlabel\tcategory\nPPC-Vfin-FS\tG\tPPC\n")
    with pytest.raises(FileNotFoundError, match="missing sequences_extension.tsv .*paper"):
        read_rule_folder(tmp_path)
    (tmp_path / "rules_extension.yaml").write_text("fillers: [hola]\n")
    (tmp_path / "sequences_extension.tsv").write_text("sequence\tlabel\tcategory\nFS*-(ADJ-FS\tG\tADJ\n")
    with pytest.raises(ValueError, match=r"sequences_extension.tsv:2: field sequence: expected \)"):
        read_rule_folder(tmp_path)
    (tmp_path / "sequences_extension.tsv").write_text("sequence\tlabel\tcategory\n")
    (tmp_path / "rules_extension.yaml").write_text("trailing_interjections: '(ja'\n")
    with pytest.raises(ValueError, match=r"rules_extension.yaml: key trailing_interjections: bad regular"):
        read_rule_folder(tmp_path)
    with pytest.raises(ValueError, match="sequence set 'all' is not one of extended, paper"):
        read_rule_folder(tmp_path, sequences="all")
    (tmp_path / "rules.yaml").write_text("clitics: [\n")
    (tmp_path / "sequences.tsv").write_text("sequence\tlabel\tcategory\n")
    with pytest.raises(ValueError, match="rules.yaml: not valid YAML"):
        load()
    with pytest.raises(FileNotFoundError, match="missing sequences.tsv"):
        read_rule_folder(tmp_path / "nowhere")


@pytest.mark.parametrize(
    ("pattern", "matches", "misses"),
    [
        ("FS*-ADJ|Vadj-FS", ["ADJ-FS-", "FS-FS-Vadj-FS-"], ["NC-FS-", "ADJ-ADJ-FS-"]),
        ("[CC-ADJ]-FS", ["FS-", "CC-ADJ-FS-"], ["CC-FS-"]),
        ("(ADV|NEG)*-Vfin", ["Vfin-", "NEG-ADV-Vfin-"], ["Vfin-Vfin-"]),
        ("Vfin|(VHfin-Vadj)-ADJ", ["Vfin-ADJ-", "VHfin-Vadj-ADJ-"], ["VHfin-ADJ-"]),
        ("ADV?-ADJ", ["ADJ-", "ADV-ADJ-"], ["XADV-ADJ-"]),  # whole tags only
    ],
)
def test_pattern_grammar(pattern, matches, misses):
    regex = re.compile(pattern_regex(pattern))
    assert all(regex.fullmatch(key) for key in matches), pattern
    assert not any(regex.fullmatch(key) for key in misses), pattern
