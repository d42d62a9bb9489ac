"""cdaflow's tools from Python: load a tool from its model folder once, then call it on sentences.

    >>> from cdaflow import CDA
    >>> cda = CDA.load("results/morph_cda/es/models/lin")          # the language is the model's
    >>> [r["counterfactual"] for r in cda(["La profesora está cansada."])]
    ['El profesor está cansado.']

Every tool works the same way (README, "Use from Python"):

* ``Tool.load(model_folder, **options)`` checks and loads the model once; the options are the
  command's (``cdaflow cda --direction to-fem`` is ``CDA.load(..., direction="to-fem")``).
* ``tool(texts)`` takes a list (or any iterable) of strings, one sentence or segment each, and
  returns a list of records; ``tool.stream(texts)`` yields them one by one as the input is read,
  in batches, so memory stays bounded on any length of input. Record N answers text N: its
  ``"line"`` is N (from 1), a blank text gets an empty record, a text ending in one line break
  (lines of a file, read as they are) is read without it.
* The records are exactly the command's JSON records (``cdaflow cda``, ``regender``,
  ``subjectivize``); ``bias-score`` and ``seat`` write TSV, whose rows are made from the records
  described at :class:`BiasScorer` and :class:`SEAT`. The commands are this package's callers: one
  code path, so a record here is the record the command writes.
* Every refusal (a missing or broken model file, a model of another kind or language, an option
  that does not apply, a text that is too long or not a string) raises :class:`CdaflowError`,
  whose message is the command's one-line error. Notes the command prints on stderr (a demo-scale
  model, an unreliable SEAT effect size) are :class:`CdaflowWarning` warnings.

Each study's tools have their module (:mod:`cdaflow.api.morph_cda`, :mod:`~cdaflow.api.regender`,
:mod:`~cdaflow.api.gap_subjective`, :mod:`~cdaflow.api.sentence_bias`); what they share is in
:mod:`cdaflow.api.tool` and :mod:`cdaflow.api.errors`. Import the tools from here (or from ``cdaflow``).
"""

from __future__ import annotations

from cdaflow.api.errors import CdaflowError, CdaflowWarning, DemoModelWarning, one_line_message
from cdaflow.api.gap_subjective import Subjectivizer
from cdaflow.api.morph_cda import CDA
from cdaflow.api.regender import Regenderer
from cdaflow.api.sentence_bias import SEAT, BiasScorer

__all__ = ["CDA", "SEAT", "BiasScorer", "CdaflowError", "CdaflowWarning", "DemoModelWarning", "Regenderer",
           "Subjectivizer", "one_line_message"]
