"""`cdaflow datasets {list,fetch,verify,repin}`: the config's dataset registry."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cdaflow import config as config_module
from cdaflow.commands.common import add_output_argument, escape_tsv, example_epilog, output
from cdaflow.data.datasets import acquire, configured_origins, describe, fetch_options, verify
from cdaflow.data.lockfile import LockFile

DATA_DIR = Path("resources/data")
CACHE_DIR = Path("resources/downloads")
LOCKFILE = Path("results/downloads.tsv")

log = logging.getLogger("cdaflow.datasets")
EXAMPLES = """\
  cdaflow datasets --config config/paper.yaml list
  cdaflow datasets --config config/paper.yaml fetch ud_2_2
  cdaflow datasets --config config/paper.yaml verify --output verify.txt
"""
FORMATS = """\
  list   TSV with a header: one row per dataset (source, url or path, whether a sha256 is set).
  fetch  one line per dataset: where it is; an existing copy fetched from another url or path
         than the config names now stops the command (fetch --force replaces it).
  verify one line per dataset: ok, or what differs from results/downloads.tsv (exit 1 then).
"""


def add_parser(subcommands: argparse._SubParsersAction) -> None:
    parser = subcommands.add_parser(
        "datasets",
        help="list, fetch, verify or re-pin the datasets a config registers",
        description=(
            "Datasets land in resources/data/<name>/ (archives cached in resources/downloads/), "
            "and what was used is pinned in results/downloads.tsv, as the workflow does. "
            "Paths are relative to the current folder: run from the project root."
        ),
        epilog=example_epilog(EXAMPLES, FORMATS),
    )
    parser.add_argument("--config", type=Path, default=Path("config.yaml"), help="workflow config")
    add_output_argument(parser, "the report (the list, what was fetched, the verification)")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    actions.add_parser("list", help="one line per dataset: source, url or path, sha256 known")
    fetch = actions.add_parser("fetch", help="download (or copy) and extract datasets")
    fetch.add_argument("names", nargs="*", help="datasets to fetch (default: all)")
    fetch.add_argument(
        "--force",
        action="store_true",
        help="download again and replace an existing folder; the old one stays until the new "
        "copy is complete and verified",
    )
    check = actions.add_parser("verify", help="check acquired datasets against the lock file")
    check.add_argument("names", nargs="*", help="datasets to verify (default: all acquired)")
    repin = actions.add_parser(
        "repin",
        help="accept the current content of datasets as their new pin in the lock file",
        description=(
            "Fetch each dataset again (a local path is read again), accept its content as the new "
            "pin in results/downloads.tsv and replace its folder. For a dataset whose upstream "
            "data or local folder changed on purpose; a sha256 set in the config still has to match."
        ),
    )
    repin.add_argument("names", nargs="+", help="datasets to re-pin")
    for action in (actions.choices[name] for name in ("list", "fetch", "verify", "repin")):
        # Also accepted after the action (`cdaflow datasets fetch NAME --config FILE`).
        action.add_argument("--config", type=Path, default=argparse.SUPPRESS, help="workflow config")
        action.add_argument("--output", type=Path, default=argparse.SUPPRESS, help="the report (default: stdout)")
    parser.set_defaults(run=run)


def _selected(entries: dict, names: list[str]) -> list[str]:
    unknown = [name for name in names if name not in entries]
    if unknown:
        raise ValueError(f"unknown dataset(s) {', '.join(unknown)}; known: {', '.join(sorted(entries))}")
    return names or sorted(entries)


def run(args: argparse.Namespace) -> int:
    cfg = config_module.load(args.config)
    with output(args) as out:
        return _run(args, cfg, out)


def _stale_copy(name: str, entry: Mapping[str, Any], dest: Path, lockfile: LockFile) -> str | None:
    """Why the copy at `dest` is not what the config names now (a changed or mistyped path or url)."""
    origins = configured_origins(name, entry)  # a local path that does not exist fails here
    pinned = {pin.url for pin in lockfile.for_dataset(name)}
    if pinned and pinned != set(origins):
        return (
            f"{name}: {dest} was fetched from {', '.join(sorted(pinned))}, but the config now names "
            f"{', '.join(origins)}; run `cdaflow datasets --config {{config}} fetch --force {name}` to replace it"
        )
    return None


def _run(args: argparse.Namespace, cfg: dict, out) -> int:
    entries = cfg["datasets"]
    if args.action == "list":
        rows = describe(entries)
        columns = list(rows[0]) if rows else []
        print("\t".join(columns), file=out)
        for row in rows:
            print("\t".join(escape_tsv(str(row[c])) for c in columns), file=out)
        return 0
    lockfile = LockFile(LOCKFILE)
    if args.action in ("fetch", "repin"):
        repin = args.action == "repin"
        refetch = repin or args.force
        for name in _selected(entries, args.names):
            dest = DATA_DIR / name
            if dest.exists() and not refetch:
                stale = _stale_copy(name, entries[name], dest, lockfile)
                if stale:
                    raise ValueError(stale.format(config=args.config))
                print(f"{name}: already at {dest} (use --force to fetch again)", file=out)
                continue
            before = {e.file: e.sha256 for e in lockfile.for_dataset(name)} if repin else {}
            _acquire(name, entries[name], dest, cfg["downloads"], lockfile, refetch=refetch, repin=repin)
            if repin:
                for entry in lockfile.for_dataset(name):
                    old = before.get(entry.file)
                    change = "unchanged" if old == entry.sha256 else f"{old or 'none'} -> {entry.sha256}"
                    print(f"{name}: pin of {entry.file}: {change}", file=out)
            print(f"{name}: {dest}", file=out)
        return 0
    names = args.names or [name for name in sorted(entries) if (DATA_DIR / name).exists()]
    if not names:
        print(f"no dataset of {args.config} is in {DATA_DIR} yet; nothing to verify (fetch them first)", file=out)
        return 0
    problems = 0
    for name in _selected(entries, names):
        found = verify(name, entries[name], DATA_DIR / name, lockfile, cache_dir=CACHE_DIR)
        problems += len(found)
        print(f"{name}: " + ("ok" if not found else "; ".join(found)), file=out)
    return 1 if problems else 0


def _acquire(
    name: str,
    entry: Mapping[str, Any],
    dest: Path,
    downloads: Mapping[str, Any],
    lockfile: LockFile,
    *,
    refetch: bool,
    repin: bool,
) -> None:
    """acquire() with the config's download options; a failure says that the old copy stays."""
    try:
        acquire(
            name,
            entry,
            dest,
            cache_dir=CACHE_DIR,
            lockfile=lockfile,
            log=log,
            fetch_kwargs=fetch_options(downloads),
            max_extracted_bytes=downloads["max_extracted_bytes"],
            refetch=refetch,
            repin=repin,
        )
    except BaseException:
        if dest.exists() and entry.get("path"):
            # Its files are hard links to the local path's where possible: not a snapshot.
            print(
                f"{name}: {dest} was not rebuilt; it shares files with {entry['path']} (hard links), "
                "so files edited in place there show in it too",
                file=sys.stderr,
            )
        elif dest.exists():
            print(f"{name}: the existing copy at {dest} is kept unchanged", file=sys.stderr)
        raise
