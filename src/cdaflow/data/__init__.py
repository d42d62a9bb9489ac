"""Dataset acquisition: robust downloads, safe archive extraction and the downloads lock file.

:func:`acquire` builds one configured dataset folder atomically; :func:`fetch`,
:func:`extract` and :class:`LockFile` are the pieces it is made of.
"""

from cdaflow.data.archive import ArchiveError, archive_kind, extract
from cdaflow.data.datasets import ChecksumError, DatasetError, ManualDownloadRequired, acquire, describe, verify
from cdaflow.data.download import (
    DownloadError,
    FetchResult,
    fetch,
    sha256_file,
    sha256_tree,
)
from cdaflow.data.lockfile import COLUMNS, LockEntry, LockFile

__all__ = [
    "COLUMNS",
    "ArchiveError",
    "ChecksumError",
    "DatasetError",
    "DownloadError",
    "FetchResult",
    "LockEntry",
    "LockFile",
    "ManualDownloadRequired",
    "acquire",
    "archive_kind",
    "describe",
    "extract",
    "fetch",
    "sha256_file",
    "sha256_tree",
    "verify",
]
