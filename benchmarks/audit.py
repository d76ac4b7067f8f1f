"""How fast is ``p2pcards audit``, and where does its time go? Prints one JSON object.

    PYTHONPATH=. python benchmarks/audit.py [FILE ...] [--repeat R] [--no-breakdown]

FILE defaults to ``replays/kanasta-4p.p2plog`` (a whole 4-player kanasta match
to 10,000 made with ``p2pcards selfplay``). For each file:

- ``audit_cpu_s`` / ``entries_per_s``: ``audit_file`` CPU time of this process
  (best of R, no profiler; the machine may be shared: wall time is also given);
- ``file_cpu_s``: reading it with every signature and the hash chain checked
  (``audit.load``), the ceiling of the audit if everything else were free;
- ``breakdown_cpu_s``: one more run with timers on the log entry handlers of the
  machine (``TableMachine._accept_*``) and the audit's own steps, which sum to
  the total: ``file_read_chain`` (read, hash chain, structure; the Ed25519
  signatures too for a short log), ``workers`` (the worker processes of a long
  log, audit/deals.py: its signatures and each deal's layers recomputed),
  ``shuffle_entries`` and ``rekey_entries`` (parsing; protocol version 2 defers
  the proofs to the deal's check), ``keys_entries`` and ``action_entries``
  (each key against its commitment, turns, opening shown cards, the rules
  engine on the public state, the reveal queue), ``reveal_entries`` (at the
  last reveal of a deal: ``final_check``, every layer recomputed from the
  revealed seeds, proofs checked only for a seat without a reveal),
  ``rules_with_all_cards`` (the deal replayed with every card known), ``other``.
  (cProfile is not used: charging every Python call, it made the rules-engine
  part look ~5x bigger than it is.)

Protocol version 1 (40-round cut-and-choose proofs, checked twice) took 24.9 s
for the kanasta match of 2026-11-29; see README.md "Measured" for version 2.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from p2pcards import audit as A  # noqa: E402
from p2pcards.mental import deal as mental_deal  # noqa: E402
from p2pcards.mental import group  # noqa: E402

DEFAULT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "replays", "kanasta-4p.p2plog")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def best(fn, repeat: int):
    """(CPU seconds, wall seconds, result) of the fastest of ``repeat`` runs.
    CPU time (this process and the audit's worker processes, audit/deals.py)
    is the figure to read on a shared machine."""
    runs, out = [], None
    for _ in range(repeat):
        group.clear_caches()
        w, c, k = time.perf_counter(), time.process_time(), _children_cpu()
        out = fn()
        runs.append((time.process_time() - c + _children_cpu() - k, time.perf_counter() - w))
    cpu, wall = min(runs)
    return cpu, wall, out


class Timers:
    """Inclusive CPU time and calls of chosen functions, by patching them."""

    def __init__(self):
        self.time: dict[str, float] = {}
        self.calls: dict[str, int] = {}
        self._undo = []

    def wrap(self, owner, attr: str, label: str) -> None:
        real = getattr(owner, attr)
        clock, acc, calls = time.process_time, self.time, self.calls

        def timed(*args, **kwargs):
            t = clock()
            try:
                return real(*args, **kwargs)
            finally:
                acc[label] = acc.get(label, 0.0) + clock() - t
                calls[label] = calls.get(label, 0) + 1
        self._undo.append((owner, attr, real))
        setattr(owner, attr, timed)

    def undo(self) -> None:
        for owner, attr, real in reversed(self._undo):
            setattr(owner, attr, real)
        self._undo.clear()


TOP = ["file_read_chain", "shuffle_entries", "rekey_entries", "keys_entries", "action_entries",
       "reveal_entries", "rules_with_all_cards"]


def breakdown(path: str) -> dict:
    from p2pcards.protocol import dealing, machine

    T = machine.TableMachine
    timers = Timers()
    sites = [
        (A, "_parsed", "file_read_chain"),
        (T, "_accept_shuffle", "shuffle_entries"),
        (T, "_accept_rekey", "rekey_entries"),
        (T, "_accept_keys", "keys_entries"),
        (T, "_accept_action", "action_entries"),
        (T, "_accept_reveal", "reveal_entries"),
        (A, "_replay_deal", "rules_with_all_cards"),
        # parts of the above
        (dealing, "check_deal", "final_check"),
        (mental_deal, "verify_shuffle", "final_check_shuffle_proofs"),
        (mental_deal, "verify_rekey", "final_check_rekey_proofs"),
        (machine, "reveal_audiences", "reveal_queue"),
        (T, "open_card", "open_card"),
    ]
    for owner, attr, label in sites:
        timers.wrap(owner, attr, label)
    group.clear_caches()
    try:
        t, k = time.process_time(), _children_cpu()
        A.audit_file(path)
        total, workers = time.process_time() - t, _children_cpu() - k
    finally:
        timers.undo()
    g = lambda k: timers.time.get(k, 0.0)  # noqa: E731
    parts = {k: g(k) for k in TOP}
    parts["other"] = total - sum(parts.values())
    parts["workers"] = workers  # another process: the signatures, each deal's layers (audit/deals.py)
    total += workers
    within = {
        "final_check (in reveal_entries)": g("final_check"),
        "final_check_proofs (in final_check)": g("final_check_shuffle_proofs") + g("final_check_rekey_proofs"),
        "reveal_queue (in keys/action entries)": g("reveal_queue"),
        "open_card (in keys/action entries)": g("open_card"),
    }
    return {
        "timed_total_cpu_s": round(total, 3),
        "breakdown_cpu_s": {k: round(v, 3) for k, v in parts.items()},
        "breakdown_pct": {k: round(100 * v / total, 1) for k, v in parts.items()},
        "of_which_cpu_s": {k: round(v, 3) for k, v in within.items()},
        "calls": {label: timers.calls.get(label, 0) for _, _, label in sites},
    }

def bench(path: str, repeat: int, do_breakdown: bool) -> dict:
    t_file, _, log = best(lambda: A.load(path), repeat)
    t_audit, wall, report = best(lambda: A.audit_file(path), repeat)
    out = {
        "file": os.path.relpath(path),
        "bytes": os.path.getsize(path),
        "game": report.game,
        "players": len(report.players),
        "entries": report.entries,
        "deals": report.deals,
        "protocol_version": log.table.protocol,
        "exit_code": report.exit_code,
        "audit_cpu_s": round(t_audit, 3),
        "audit_wall_s": round(wall, 3),
        "entries_per_s": round(report.entries / t_audit),
        "s_per_deal": round(t_audit / max(1, report.deals), 3),
        "file_cpu_s": round(t_file, 4),
        "file_entries_per_s": round(report.entries / t_file),
    }
    if do_breakdown:
        out.update(breakdown(path))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", default=[DEFAULT])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--no-breakdown", action="store_true")
    args = ap.parse_args()
    results = [bench(f, args.repeat, not args.no_breakdown) for f in args.files]
    print(json.dumps({"cpus": len(os.sched_getaffinity(0)), "load_avg_1m": round(os.getloadavg()[0], 2),
                      "results": results}, indent=1))


if __name__ == "__main__":
    main()
