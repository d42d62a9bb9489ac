"""Stanza's models for the languages a config parses with stanza: where they are, what is missing, fetching them.

The workflow fetches them as ``stanza.download`` does, with stanza's own code: the resources index
``<resources_url>/resources_<version>.json`` of the installed stanza version (``config parsing.
stanza_resources_url``, default stanza's own), then every model file the ``tokenize,mwt,pos,lemma,depparse``
pipeline needs, with its dependencies (pretrained vectors, character LMs), from the index's model URL
(``parsing.stanza_model_url``; ``default`` takes the URL the index gives), each checked against the index's md5.
Each language gets its own stanza resources folder ``resources/models/stanza/<lang>/`` (``resources.json`` +
``<lang>/<processor>/<package>.pt``), written by the local rule ``fetch_stanza_models``. A config that names
``parsing.stanza_model_dir`` uses that folder instead (stanza's layout, all languages in one), checked at
start-up: the workflow neither fetches into it nor starts without it.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "FETCH_ROOT",
    "PROCESSORS",
    "StanzaModelsError",
    "fetch_stanza_models",
    "fetched_dir",
    "model_dir",
    "model_files",
    "missing_models",
    "parse_inputs",
    "stanza_languages",
    "startup_problems",
]

log = logging.getLogger(__name__)

FETCH_ROOT = "resources/models/stanza"
# The parser backend's pipeline (cdaflow.text.stanza_parser.StanzaParser); mwt only where the language has one.
PROCESSORS: tuple[str, ...] = ("tokenize", "mwt", "pos", "lemma", "depparse")


class StanzaModelsError(RuntimeError):
    """Stanza's models could not be fetched or are incomplete; the message names the language and the URL or file."""


def fetched_dir(lang: str) -> str:
    """The folder rule fetch_stanza_models fills for ``lang`` (a stanza resources folder of its own)."""
    return f"{FETCH_ROOT}/{lang}"


def model_dir(parsing: Mapping[str, Any], lang: str) -> str:
    """The stanza resources folder the parsers of ``lang`` read: ``parsing.stanza_model_dir`` or the fetched one."""
    return parsing.get("stanza_model_dir") or fetched_dir(lang)


def parse_inputs(config: Mapping[str, Any], backend: str, lang: str) -> list[str]:
    """What a parse job with ``backend`` in ``lang`` needs first (a rule input): the folder rule
    fetch_stanza_models fills, unless the backend is not stanza or ``parsing.stanza_model_dir`` names one."""
    if backend != "stanza" or config["parsing"].get("stanza_model_dir"):
        return []
    return [fetched_dir(lang)]


def stanza_languages(config: Mapping[str, Any]) -> list[str]:
    """Every language the config parses with stanza: its corpora, treebanks re-parsed with stanza, and Spanish
    where Study B tags with the corpus backend (regender_tag, cross_study_cda_regender)."""
    parsing = config["parsing"]
    langs: set[str] = set()
    if parsing["corpora"] == "stanza":
        langs |= {entry["lang"] for entry in config["corpora"].values()}
        regender = config.get("studies", {}).get("regender", {})
        if regender.get("enabled"):
            langs.add("es")
    if parsing["treebanks"] == "stanza":
        langs |= {entry["lang"] for entry in config["treebanks"].values()}
    return sorted(langs)


def _resources(root: Path) -> dict[str, Any]:
    path = root / "resources.json"
    if not path.is_file():
        raise StanzaModelsError(f"{root}: no resources.json")
    try:
        with open(path, encoding="utf-8") as handle:
            resources = json.load(handle)
    except (OSError, ValueError) as exc:
        raise StanzaModelsError(f"{path}: not a stanza resources index ({exc})") from None
    if not isinstance(resources, dict):
        raise StanzaModelsError(f"{path}: not a stanza resources index (not a JSON object)")
    return resources


def _resolve(resources: Mapping[str, Any], lang: str, where: str) -> tuple[str, list[str]]:
    """(language after aliases, processors to load) as the parser backend asks for them."""
    seen: set[str] = set()
    while isinstance(resources.get(lang), dict) and "alias" in resources[lang] and lang not in seen:
        seen.add(lang)
        lang = resources[lang]["alias"]
    if not isinstance(resources.get(lang), dict):
        raise StanzaModelsError(f"{where} does not list language {lang!r}")
    return lang, [p for p in PROCESSORS if p != "mwt" or "mwt" in resources[lang]]


def model_files(resources: Mapping[str, Any], lang: str, where: str = "resources.json") -> list[tuple[str, str, str]]:
    """(language, processor, package) of every model file the pipeline loads for ``lang``, dependencies included,
    resolved by stanza's own code (the list ``stanza.download`` fetches)."""
    from stanza.resources import common

    resolved, processors = _resolve(resources, lang, where)
    try:
        wanted = common.maintain_processor_list(
            resources, resolved, None, {p: "default" for p in processors}, allow_pretrain=True, maybe_add_mwt=False
        )
        wanted = common.flatten_processor_list(common.add_dependencies(resources, resolved, wanted))
    except (KeyError, TypeError, ValueError) as exc:
        raise StanzaModelsError(f"{where}: no usable default package for {resolved!r} ({exc})") from None
    found = {processor for processor, _ in wanted}
    absent = [p for p in processors if p not in found]
    if absent:
        raise StanzaModelsError(f"{where}: no default {', '.join(absent)} model for {resolved!r}")
    # A language without a lemmatizer gets stanza's "identity" one, which has no file.
    return [(resolved, processor, package) for processor, package in sorted(wanted)
            if not (processor == "lemma" and package == "identity")]  # fmt: skip


def missing_models(root: str | os.PathLike[str], lang: str) -> list[str]:
    """What ``root`` lacks for parsing ``lang`` (paths relative to it, or one problem); empty when complete."""
    root = Path(root)
    try:
        files = model_files(_resources(root), lang, str(root / "resources.json"))
    except StanzaModelsError as exc:
        return [str(exc)]
    return [f"{resolved}/{p}/{package}.pt" for resolved, p, package in files
            if not (root / resolved / p / f"{package}.pt").is_file()]  # fmt: skip


def startup_problems(config: Mapping[str, Any]) -> list[str]:
    """One line per language whose stanza models are neither present nor to be fetched by the workflow.

    With ``parsing.stanza_model_dir`` the models must be there now (nothing fetches into a folder the user
    manages); without it, rule fetch_stanza_models fetches them, unless a folder it fetched before is incomplete
    (the rule would not run again to mend it).
    """
    parsing = config["parsing"]
    problems = []
    for lang in stanza_languages(config):
        given = parsing.get("stanza_model_dir")
        root = Path(model_dir(parsing, lang))
        if not given and not root.exists():
            continue
        lacking = missing_models(root, lang)
        if not lacking:
            continue
        if given:
            problems.append(
                f"parsing.stanza_model_dir: {root} lacks stanza's models for {lang!r}: {', '.join(lacking)} "
                f"(fetch them there with stanza.download('{lang}', model_dir='{root}'), or set stanza_model_dir: "
                f"null to let rule fetch_stanza_models fetch them into {fetched_dir(lang)})"
            )
        else:
            problems.append(
                f"{root}: the stanza models fetched for {lang!r} are incomplete: {', '.join(lacking)} "
                f"(delete the folder and rule fetch_stanza_models fetches them again)"
            )
    return problems


def fetch_stanza_models(
    lang: str,
    dest: str | os.PathLike[str],
    *,
    resources_url: str,
    model_url: str = "default",
    resources_version: str | None = None,
    lockfile: Any = None,
    retries: int = 3,
    backoff: float = 5.0,
    sleep: Callable[[float], None] = time.sleep,
) -> Path:
    """Fetch the index and ``lang``'s models into ``dest`` (replaced only once complete) with stanza's download
    code; record every file in ``lockfile`` (dataset ``stanza:<lang>``). Returns ``dest``."""
    import requests
    from stanza.resources import common

    from cdaflow.data.download import sha256_file
    from cdaflow.data.lockfile import LockEntry, utc_now
    from cdaflow.io.atomic import atomic_directory

    version = resources_version or common.DEFAULT_RESOURCES_VERSION
    index_url = f"{resources_url.rstrip('/')}/resources_{version}.json"
    dest = Path(dest)
    with atomic_directory(dest) as build:
        for attempt in range(retries + 1):
            try:
                # Exactly what stanza.download does first (download_json=True), then the models it lists.
                common.download_resources_json(str(build), resources_url=resources_url.rstrip("/"),
                                               resources_version=version)  # fmt: skip
                resources = _resources(build)
                files = model_files(resources, lang, index_url)
                resolved = files[0][0]
                processors = [p for p in PROCESSORS if any(p == processor for _, processor, _ in files)]
                common.download(
                    resolved, model_dir=str(build), processors=",".join(processors), package="default",
                    resources_url=resources_url.rstrip("/"), resources_version=version, model_url=model_url,
                    download_json=False, logging_level="INFO",
                )  # fmt: skip
                break
            except StanzaModelsError:
                raise
            except (requests.RequestException, OSError, ValueError) as exc:
                # A transfer that failed or came back wrong (md5) is retried; files already right are kept.
                reason = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
                if attempt == retries:
                    raise StanzaModelsError(
                        f"stanza models for {lang!r} could not be fetched (index {index_url}, models from "
                        f"{model_url if model_url != 'default' else 'the URL the index gives'}) after "
                        f"{attempt + 1} attempt(s): {reason}"
                    ) from None
                wait = backoff * 2**attempt
                log.warning("stanza %s: %s; retrying in %.0f s (%d/%d)", lang, reason, wait, attempt + 1, retries)
                sleep(wait)
        lacking = missing_models(build, lang)
        if lacking:
            raise StanzaModelsError(f"stanza models for {lang!r} fetched from {index_url} lack {', '.join(lacking)}")
        url = common.expand_model_url(resources, model_url)
        entries = [("resources.json", index_url, build / "resources.json")] + [
            (f"{resolved}/{processor}/{package}.pt",
             url.format(resources_version=version, lang=resolved, filename=f"{processor}/{package}.pt"),
             build / resolved / processor / f"{package}.pt")
            for resolved, processor, package in files
        ]  # fmt: skip
        recorded = [LockEntry(f"stanza:{lang}", source, name, path.stat().st_size, sha256_file(path), utc_now())
                    for name, source, path in entries]  # fmt: skip
    if lockfile is not None:
        lockfile.record_many(recorded)
    log.info("stanza %s: %d model files (%s) in %s", lang, len(files), ", ".join(f"{p}/{k}" for _, p, k in files), dest)
    return dest
