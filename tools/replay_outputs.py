"""Every game record and JSON of replays/, byte for byte, against another version of the code.

    python tools/replay_outputs.py [--old REV|PATH] [--save DIR] [--against DIR] [--jobs N]

For each log in replays/ and each language (en, pl, hu) it runs, as separate
processes, ``p2pcards replay`` with ``--text``, ``--text --all``, ``--text
--as 0`` and ``--json`` (JSON stays English whatever the language: running it
in each language checks that too) and keeps stdout, stderr and the exit code.
``--old`` runs the same with another tree (a git revision of this repository,
exported to a temporary folder, or a folder holding another tree) and says
which outputs differ; ``--save DIR`` writes this tree's outputs to DIR and
``--against DIR`` compares with outputs saved before (by any version). Exit
status 1 when any output differs.

A change meant to make the record faster, not different (issue 26: digit
separators from a table, lazy imports, the printable filter's fast path),
is checked with ``--old main``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
LANGUAGES = ("en", "pl", "hu")
FORMS = {"text": ["--text"], "text-all": ["--text", "--all"], "text-as0": ["--text", "--as", "0"],
         "json": ["--json"]}


def export(rev: str, into: str) -> str:
    """The tree of git revision ``rev`` of this repository, in ``into``."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", into], input=archive, check=True)
    return into


def cases() -> list[tuple[str, str, str]]:
    """(log, language, form) of every output compared."""
    logs = sorted(p.name for p in (REPO / "replays").glob("*.p2plog"))
    return [(log, lang, form) for log in logs for lang in LANGUAGES for form in FORMS]


def name(case: tuple[str, str, str]) -> str:
    log, lang, form = case
    return f"{log.removesuffix('.p2plog')}.{lang}.{form}"


def output(tree: str, case: tuple[str, str, str], home: str) -> bytes:
    """stdout, stderr and exit code of one ``p2pcards replay`` run from ``tree``."""
    log, lang, form = case
    env = {k: v for k, v in os.environ.items() if k not in ("P2PCARDS_LANG", "LANG", "LC_ALL", "LC_MESSAGES")}
    env.update(PYTHONPATH=tree, P2PCARDS_HOME=home, COLUMNS="100")
    done = subprocess.run([sys.executable, "-m", "p2pcards", "--lang", lang, "replay", *FORMS[form],
                           str(REPO / "replays" / log)], env=env, cwd=tree, capture_output=True)
    return done.stdout + b"\n--- stderr\n" + done.stderr + f"\n--- exit {done.returncode}\n".encode()


def outputs(tree: str, jobs: int) -> dict[str, bytes]:
    with tempfile.TemporaryDirectory() as home, ThreadPoolExecutor(jobs) as pool:
        all_cases = cases()
        return dict(zip(map(name, all_cases), pool.map(lambda c: output(tree, c, home), all_cases)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", help="a git revision (e.g. main) or a folder with the old tree")
    ap.add_argument("--save", help="write this tree's outputs to this folder")
    ap.add_argument("--against", help="compare with outputs saved before in this folder")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    new = outputs(str(REPO), args.jobs)
    if args.save:
        os.makedirs(args.save, exist_ok=True)
        for key, data in new.items():
            Path(args.save, key).write_bytes(data)
    olds: dict[str, bytes] | None = None
    if args.against:
        olds = {key: Path(args.against, key).read_bytes() for key in new if Path(args.against, key).exists()}
    elif args.old:
        with tempfile.TemporaryDirectory() as tmp:
            tree = args.old if os.path.isdir(args.old) else export(args.old, tmp)
            olds = outputs(tree, args.jobs)
    if olds is None:
        print(f"{len(new)} outputs" + (f" saved in {args.save}" if args.save else ""))
        return 0
    differ = [key for key in new if olds.get(key) != new[key]]
    for key in differ:
        print(f"differs: {key}" if key in olds else f"missing in the old outputs: {key}")
    print(f"{len(new) - len(differ)} of {len(new)} outputs byte-identical")
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
