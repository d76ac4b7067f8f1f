"""The audit and the game record, as a user runs them, side by side (and against another version of the code).

    PYTHONPATH=. python benchmarks/audit_speed.py [--old REV|PATH] [--runs N] [FILE ...]

For each FILE (default: the three logs of issue 26, replays/kanasta-4p,
kanaszta-4p and warkocz-3p-false-pass) it runs, as separate processes, the
commands ``p2pcards audit FILE``, ``p2pcards replay --text FILE`` and
``p2pcards replay --json FILE`` with this tree's code, and with ``--old`` the
same commands with the old code (a git revision of this repository, exported
to a temporary folder, or a folder holding another tree). A round runs each
command once with each tree, one after the other, so that a machine shared
with others loads them alike; ``--runs`` rounds after one not counted (it
writes each tree's bytecode: as an installed package has it, whatever
PYTHONDONTWRITEBYTECODE says, in a temporary folder). It prints the median
wall time and the median CPU time (user + system, the workers' included) of
each, and the ratios, each taken within a round and then the median: replay /
audit (the record's goal, issue 26: at most 1.10 of the audit's CPU) and
new / old.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_FILES = ["replays/kanasta-4p.p2plog", "replays/kanaszta-4p.p2plog", "replays/warkocz-3p-false-pass.p2plog"]
COMMANDS = {"audit": ["audit"], "replay --text": ["replay", "--text"], "replay --json": ["replay", "--json"]}


def export(rev: str, into: str) -> str:
    """The tree of git revision ``rev`` of this repository, in ``into``."""
    archive = subprocess.run(["git", "-C", REPO, "archive", rev], check=True, capture_output=True).stdout
    os.makedirs(into, exist_ok=True)
    subprocess.run(["tar", "-x", "-C", into], input=archive, check=True)
    return into


def run(tree: str, command: list[str], path: str, pycache: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one ``p2pcards`` process run from ``tree``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=tree, P2PCARDS_HOME=tempfile.gettempdir(), PYTHONPYCACHEPREFIX=pycache)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "p2pcards", *command, path], env=env, cwd=tree,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def spread(values: list[float]) -> str:
    """The median, and the range in brackets."""
    return f"{statistics.median(values):.2f} [{min(values):.2f}-{max(values):.2f}]"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", default=DEFAULT_FILES)
    ap.add_argument("--old", help="a git revision (e.g. main, 722b5a2) or a folder with the old tree")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"new": REPO}
        if args.old:
            trees["old"] = args.old if os.path.isdir(args.old) else export(args.old, os.path.join(tmp, "old"))
        print(f"{len(os.sched_getaffinity(0))} cores, load {os.getloadavg()[0]:.2f}; medians of {args.runs} rounds"
              f" [min-max]; CPU = user + system of the process and its workers; ratios taken within each round")
        for path in args.files:
            path = os.path.join(REPO, path) if not os.path.isabs(path) else path
            samples: dict[tuple[str, str], list[tuple[float, float]]] = {
                (name, label): [] for name in trees for label in COMMANDS}
            for round_ in range(args.runs + 1):
                for label, command in COMMANDS.items():
                    for name, tree in trees.items():
                        sample = run(tree, command, path, os.path.join(tmp, "pycache-" + name))
                        if round_:  # the first round writes the bytecode
                            samples[name, label].append(sample)
            print(f"\n{os.path.basename(path)}")
            for label in COMMANDS:
                for name in trees:
                    walls, cpus = zip(*samples[name, label])
                    line = f"  {label:<14} {name:<4} wall {spread(list(walls))}  CPU {spread(list(cpus))}"
                    if label != "audit":
                        audit = samples[name, "audit"]
                        line += (f"   /audit: wall {spread([w / a[0] for (w, _), a in zip(samples[name, label], audit)])}"
                                 f" CPU {spread([c / a[1] for (_, c), a in zip(samples[name, label], audit)])}")
                    print(line)
                if args.old:
                    new, old = samples["new", label], samples["old", label]
                    print(f"  {label:<14} new/old   wall {spread([n[0] / o[0] for n, o in zip(new, old)])}"
                          f"  CPU {spread([n[1] / o[1] for n, o in zip(new, old)])}", flush=True)


if __name__ == "__main__":
    main()
