"""How much of the audit's CPU is the cryptography that keeping every check costs, at the least?

    PYTHONPATH=. python benchmarks/audit_floor.py [FILE ...] [--rounds N]

The audit of a finished log (issue 26) must, whatever else it does, verify
every entry's Ed25519 signature (libsodium, through PyNaCl) and recompute every
layer of every deal from the revealed seeds: one libsecp256k1 multiplication a
card for each seat's shuffle and for its re-key, and one fixed-base
multiplication a card for the re-key's key commitments (coincurve). Neither
library has a batch or multi-scalar call that Python can reach, so these calls
one by one are the floor. (Checking the final deck alone would be cheaper and
drops checks: tests/test_audit_layers.py.)

For each FILE (default: the three logs of issue 26) a round runs, one after the
other in this process: the whole audit without worker processes
(``audit_file(workers=0)``: its CPU is the audit's, the workers' split aside),
and those library calls alone on the same data (every signature, and each
deal's layers as the audit hands them to its workers, ``mental.layers_match``).
Prints the medians of ``--rounds`` rounds and ``floor / audit``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)
from p2pcards import audit as A, mental  # noqa: E402
from p2pcards.audit import deals  # noqa: E402
from p2pcards.mental import group  # noqa: E402
from p2pcards.protocol.log import parse_log, read_bytes, signatures_hold, signed_parts  # noqa: E402

DEFAULT_FILES = ["replays/kanasta-4p.p2plog", "replays/kanaszta-4p.p2plog", "replays/warkocz-3p-false-pass.p2plog"]


class LayerRecorder:
    """A deal checker for the audit's walk that keeps each clean deal's layers
    (what ``deals.DealChecks`` sends to a worker) and checks nothing itself."""

    def __init__(self):
        self.layers: list[list] = []

    def __call__(self, record: mental.DealRecord, proofs_verified: bool) -> mental.DealAudit:
        expected = mental.expect_deal(record, proofs_verified)
        if expected is None:
            return mental.check_deal(record, proofs_verified)
        self.layers.append(expected[1])
        return expected[0]

    def points(self, blobs: list[bytes]) -> None:
        pass


def floor_data(path: str):
    """(the signatures' parts, every clean deal's layers) of the log at ``path``."""
    log = parse_log(read_bytes(path), signatures=False)
    recorder = LayerRecorder()
    A._audit_log(log, verify_proofs=False, deal_checker=recorder, unchecked=deals.Unchecked())
    return signed_parts(log), recorder.layers


def cpu(fn) -> float:
    group.clear_caches()
    start = time.process_time()
    fn()
    return time.process_time() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", default=DEFAULT_FILES)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    print(f"{len(os.sched_getaffinity(0))} cores, load {os.getloadavg()[0]:.2f}; CPU seconds, medians of"
          f" {args.rounds} rounds [min-max], one process")
    for path in args.files:
        path = path if os.path.isabs(path) else os.path.join(REPO, path)
        signed, layers = floor_data(path)
        cards = sum(len(deck_in) for layer in layers for _, _, deck_in, _, _ in layer)
        figures: dict[str, list[float]] = {"audit": [], "signatures": [], "layers": []}
        for _ in range(args.rounds):
            figures["audit"].append(cpu(lambda: A.audit_file(path, workers=0)))
            figures["signatures"].append(cpu(lambda: signatures_hold(*signed, threads=1)))
            figures["layers"].append(cpu(lambda: all(mental.layers_match(layer) for layer in layers)))
        floors = [s + la for s, la in zip(figures["signatures"], figures["layers"])]
        ratios = [f / a for f, a in zip(floors, figures["audit"])]
        spread = lambda xs: f"{statistics.median(xs):.2f} [{min(xs):.2f}-{max(xs):.2f}]"  # noqa: E731
        print(f"{os.path.relpath(path, REPO)}: {len(signed[0])} signatures, {len(layers)} deals recomputed"
              f" ({cards} card layers)")
        print(f"  audit {spread(figures['audit'])}; floor {spread(floors)} = signatures"
              f" {spread(figures['signatures'])} + layers {spread(figures['layers'])}; floor / audit"
              f" {spread(ratios)}")


if __name__ == "__main__":
    main()
