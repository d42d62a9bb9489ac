"""Text processing shared by the studies: parser backends in :mod:`cdaflow.text.parsing`.

The package re-exports the parsing module's public names, listed once in its ``__all__``.
"""

from cdaflow.text import parsing as _parsing
from cdaflow.text.parsing import *  # noqa: F403

__all__ = list(_parsing.__all__)
