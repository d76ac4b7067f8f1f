"""How long does ``p2pcards replay FILE`` keep a player waiting? Prints one JSON object.

    PYTHONPATH=. python benchmarks/replay_load.py [FILE ...]

FILE defaults to every ``replays/*.p2plog``. For each file, wall time from the
start (the imports already done) as the viewer lives it:

- ``first_frame_s``: the file read and verified (signatures, chain) and the
  table entry ready to draw: the viewer's screen is up from here, and the rest
  of the log is read in a thread behind a progress bar;
- ``first_deal_s``: the first deal dealt and its first move shown (the thread
  has walked that far);
- ``whole_log_s``: every entry walked and the audit's own checks done (the
  score sheets, the verdict in the header, ``End``).
"""

from __future__ import annotations

import glob
import json
import os
import sys
import threading
import time

from p2pcards.audit.replay import MOVE, open_replay

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def measure(path: str) -> dict:
    t0 = time.perf_counter()
    replay = open_replay(path)
    first_frame = time.perf_counter() - t0
    first_move = threading.Event()
    stamps: dict[str, float] = {}

    def progress():
        if not first_move.is_set() and any(m.kind == MOVE for m in replay.moves):
            stamps["first_deal"] = time.perf_counter() - t0
            first_move.set()

    replay.on_progress = progress
    replay.start().join()
    whole = time.perf_counter() - t0
    return {"file": os.path.basename(path), "entries": replay.total, "first_frame_s": round(first_frame, 3),
            "first_deal_s": round(stamps.get("first_deal", whole), 3), "whole_log_s": round(whole, 3)}


def main(argv: list[str]) -> None:
    files = argv or sorted(glob.glob(os.path.join(REPO, "replays", "*.p2plog")))
    print(json.dumps([measure(f) for f in files], indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
