"""File formats shared by the studies (CoNLL-U in :mod:`cdaflow.io.conllu`).

The package re-exports the CoNLL-U module's public names, listed once in its ``__all__``.
"""

from cdaflow.io import conllu as _conllu
from cdaflow.io.conllu import *  # noqa: F403

__all__ = list(_conllu.__all__)
