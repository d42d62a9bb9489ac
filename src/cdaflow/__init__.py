"""cdaflow: reproducible workflow and tools for four studies of gender bias in NLP data.

Shared pieces live in :mod:`cdaflow.io` (file formats), :mod:`cdaflow.data`
(dataset acquisition) and :mod:`cdaflow.text` (parsing); each study has its own
subpackage (``morph_cda``, ``regender``, ``gap_subjective``, ``sentence_bias``).
"""

__version__ = "0.1.0"
