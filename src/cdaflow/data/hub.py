"""Pretrained models from the Hugging Face Hub, fetched once into ``resources/models/`` (rule fetch_model).

A config `model_ref` ``{hub: <repo id>, revision: <branch, tag or commit>}`` is fetched by the
``fetch_model`` rule on the submit host (a local rule: compute nodes of many clusters have no outbound
network), with ``huggingface_hub.snapshot_download`` from ``downloads.hub_endpoint`` (the Hub, or a
mirror), into a temporary sibling folder that replaces ``resources/models/<repo id with / as -->``
once complete. The lock file records the commit it resolved to and the sha256 of the folder
(``dataset`` column ``hub:<repo id>``); a later fetch without a configured revision asks for that
commit again, so a rerun gets the same weights (trust on first use, as for datasets).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from cdaflow.data.download import sha256_tree, tree_files
from cdaflow.data.lockfile import LockEntry, LockFile, utc_now
from cdaflow.io.atomic import atomic_directory

__all__ = ["HUB_ENDPOINT", "HubError", "fetch_hub_model", "hub_folder_name", "hub_refs"]

log = logging.getLogger(__name__)

HUB_ENDPOINT = "https://huggingface.co"
RECORD = ".cdaflow-hub.json"  # what a fetched folder came from: repo, revision asked, commit resolved


class HubError(RuntimeError):
    """A model could not be fetched from the Hub; the message names the repository and the endpoint."""


def hub_folder_name(repo_id: str) -> str:
    """The folder of a Hub repository under resources/models: ``org/name`` -> ``org--name``."""
    if not repo_id or repo_id.startswith(("/", ".")) or ".." in repo_id or repo_id.count("/") > 1:
        raise HubError(f"{repo_id!r} is not a Hub repository id (name or org/name)")
    return repo_id.replace("/", "--")


def hub_refs(config: Any) -> dict[str, dict[str, Any]]:
    """Every ``{hub: ...}`` model reference in a config, by folder name (two refs to one repository
    must agree on the revision)."""
    found: dict[str, dict[str, Any]] = {}

    def walk(value: Any, where: str) -> None:
        if isinstance(value, Mapping):
            if isinstance(value.get("hub"), str):
                name = hub_folder_name(value["hub"])
                ref = {"hub": value["hub"], "revision": value.get("revision")}
                if name in found and found[name] != ref:
                    raise HubError(f"{where}: {value['hub']} is asked for at two revisions: {found[name]} and {ref}")
                found[name] = ref
            for key, item in value.items():
                walk(item, f"{where}.{key}" if where else str(key))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, f"{where}[{index}]")

    walk(config, "")
    return found


def _lock_name(repo_id: str) -> str:
    return f"hub:{repo_id}"


def fetch_hub_model(
    repo_id: str,
    dest: str | os.PathLike[str],
    *,
    revision: str | None = None,
    endpoint: str = HUB_ENDPOINT,
    lockfile: LockFile | None = None,
    retries: int = 3,
    backoff: float = 5.0,
    timeout: float = 60.0,
    sleep: Callable[[float], None] = time.sleep,
) -> Path:
    """Fetch a Hub repository into the folder ``dest`` (replaced only once complete); return ``dest``.

    The revision asked for is ``revision``, else the commit the lock file pinned, else ``main``.
    Network failures are retried ``retries`` times, waiting ``backoff * 2**attempt`` seconds.
    """
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError, RepositoryNotFoundError

    dest = Path(dest)
    pinned = lockfile.get(_lock_name(repo_id), "(snapshot)") if lockfile is not None else None
    pinned_commit = pinned.url.rsplit("/", 1)[-1] if pinned is not None else None
    asked = revision or pinned_commit or "main"
    from huggingface_hub import constants

    if constants.HF_HUB_OFFLINE:
        raise HubError(
            f"{repo_id}: HF_HUB_OFFLINE is set in the environment, so the Hub at {endpoint} cannot be reached; "
            f"unset it to fetch, or save the model by hand in {dest}"
        )
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    os.environ["HF_HUB_DOWNLOAD_TIMEOUT"] = str(int(timeout))
    with atomic_directory(dest) as build:
        for attempt in range(retries + 1):
            try:
                snapshot_download(repo_id, revision=asked, local_dir=build, endpoint=endpoint.rstrip("/"))
                break
            except RepositoryNotFoundError as error:
                raise HubError(f"{repo_id}: no such repository at {endpoint} (or it is private): {error}") from None
            except (HfHubHTTPError, LocalEntryNotFoundError, OSError) as error:
                if attempt == retries:
                    raise HubError(
                        f"{repo_id}@{asked}: could not be fetched from {endpoint} after {attempt + 1} attempt(s): "
                        f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
                    ) from None
                wait = backoff * 2**attempt
                log.warning("%s: %s; retrying in %.0f s (%d/%d)", repo_id, error, wait, attempt + 1, retries)
                sleep(wait)
        commit = _resolved_commit(build, asked)
        shutil.rmtree(build / ".cache", ignore_errors=True)  # huggingface_hub's download bookkeeping
        if pinned_commit is not None and revision is None and commit != pinned_commit:
            raise HubError(f"{repo_id}: asked for the pinned commit {pinned_commit}, got {commit}")
        if not tree_files(build):
            raise HubError(f"{repo_id}@{asked}: the repository has no files")
        (build / RECORD).write_text(
            json.dumps({"hub": repo_id, "revision": asked, "commit": commit, "endpoint": endpoint}, indent=1) + "\n",
            encoding="utf-8",
        )
        digest = sha256_tree(build)
        size = sum(path.stat().st_size for _, path in tree_files(build))
    if lockfile is not None:
        url = f"{endpoint.rstrip('/')}/{repo_id}/tree/{commit}"
        lockfile.record(LockEntry(_lock_name(repo_id), url, "(snapshot)", size, digest, utc_now()))
    log.info("%s@%s (commit %s): %d bytes in %s", repo_id, asked, commit, size, dest)
    return dest


def _resolved_commit(folder: Path, asked: str) -> str:
    """The commit ``snapshot_download`` resolved: the name of its cached tree listing, else ``asked``."""
    trees = folder / ".cache" / "huggingface" / "trees"
    names = sorted(p.stem for p in trees.glob("*.json")) if trees.is_dir() else []
    return names[0] if len(names) == 1 else asked
