"""The audit and the game record, as a user runs them, against another version of the code.

    PYTHONPATH=. python benchmarks/audit_speed.py [--old REV|PATH] [--runs N] [FILE ...]

For each FILE (default: the three logs of issue 26, replays/kanasta-4p,
kanaszta-4p and warkocz-3p-false-pass) it runs, as separate processes, the
commands ``p2pcards audit FILE`` and ``p2pcards replay --text FILE`` with this
tree's code, and with ``--old`` the same commands with the old code (a git
revision of this repository, exported to a temporary folder, or a folder
holding another tree). Runs alternate old and new, ``--runs`` times each, so
that a machine shared with others loads both alike; it prints the median
wall time and the median CPU time (user + system, the workers' included) of
each, and the ratios in one table: new / old, and replay / audit.
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
COMMANDS = {"audit": ["audit"], "replay --text": ["replay", "--text"]}


def export(rev: str, into: str) -> str:
    """The tree of git revision ``rev`` of this repository, in ``into``."""
    archive = subprocess.run(["git", "-C", REPO, "archive", rev], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", into], input=archive, check=True)
    return into


def run(tree: str, command: list[str], path: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one ``p2pcards`` process run from ``tree``."""
    env = dict(os.environ, PYTHONPATH=tree, P2PCARDS_HOME=tempfile.gettempdir())
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "p2pcards", *command, path], env=env, cwd=tree,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", default=DEFAULT_FILES)
    ap.add_argument("--old", help="a git revision (e.g. main, 722b5a2) or a folder with the old tree")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"new": REPO}
        if args.old:
            trees["old"] = args.old if os.path.isdir(args.old) else export(args.old, tmp)
        print(f"{len(os.sched_getaffinity(0))} cores, load {os.getloadavg()[0]:.2f}; medians of {args.runs} runs;"
              f" CPU = user + system of the process and its workers")
        print(f"{'file':<34} {'command':<14} " + " ".join(f"{name + ' wall':>9} {name + ' CPU':>8}" for name in trees)
              + ("   new/old wall  new/old CPU" if args.old else ""))
        for path in args.files:
            path = os.path.join(REPO, path) if not os.path.isabs(path) else path
            medians: dict[tuple[str, str], tuple[float, float]] = {}
            for label, command in COMMANDS.items():
                samples: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
                for _ in range(args.runs):
                    for name, tree in trees.items():  # alternate: both see the same load
                        samples[name].append(run(tree, command, path))
                for name in trees:
                    medians[name, label] = (statistics.median(w for w, _ in samples[name]),
                                            statistics.median(c for _, c in samples[name]))
                cells = " ".join(f"{medians[name, label][0]:9.2f} {medians[name, label][1]:8.2f}" for name in trees)
                ratio = ""
                if args.old:
                    (nw, nc), (ow, oc) = medians["new", label], medians["old", label]
                    ratio = f"   {nw / ow:12.2f} {nc / oc:12.2f}"
                print(f"{os.path.basename(path):<34} {label:<14} {cells}{ratio}", flush=True)
            for name in trees:
                (aw, ac), (rw, rc) = medians[name, "audit"], medians[name, "replay --text"]
                print(f"{'':<34} {'replay/audit':<14} {name}: wall {rw / aw:.2f}, CPU {rc / ac:.2f}")


if __name__ == "__main__":
    main()
