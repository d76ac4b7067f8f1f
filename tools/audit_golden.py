"""The audit's answers pinned: golden JSON for tests/test_audit_golden.py.

The audit must say exactly the same thing, byte for byte, whatever is done to
make it faster. This tool writes what it says today on:

* every log in replays/;
* the logs of every cheat of ``selfplay --cheat`` (games between real peers
  over loopback, kept in tests/audit_golden/logs/: they are not reproducible,
  keys and timing differ each run), alone and, where a cheater keeps a log of
  its own (forged-evidence, rewrite-end), beside the honest one;
* hostile logs made by the fuzzers' forgers (tests/test_fuzz_entries.py):
  forged and re-chained logs, damaged files, forged aborts. These are made
  again by the test from fixed seeds; the golden file keeps each one's
  SHA-256 so that a change in the generator is told apart from a change in
  the audit.

    PYTHONPATH=$PWD python tools/audit_golden.py cheats   # play the cheat logs again (rarely)
    PYTHONPATH=$PWD python tools/audit_golden.py write    # the golden JSON, from the code on PYTHONPATH

Write the golden file with the code whose answers are to be kept: run this
tool from this tree with ``PYTHONPATH`` naming the old tree (the logs are read
from this tree; the forgers are imported from the path, the old tree's first).
The golden file of issue 26 was written so, with the code before it.
Regenerate it only for a deliberate change of what the audit says (a new
check, a reworded detail: its JSON keeps the English text), and say so in the
commit.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN_DIR = ROOT / "tests" / "audit_golden"
LOGS = GOLDEN_DIR / "logs"
GOLDEN = GOLDEN_DIR / "golden.json"

# (cheat, game, players, options, cheater): every cheat of CONTRACT.md, as tests/test_cheats.py plays it.
CHEAT_CASES = [
    ("bad-shuffle", "bura", 3, {"rounds": 1}, 1),
    ("wrong-key", "bura", 3, {"rounds": 1}, 1),
    ("phantom-card", "bura", 3, {"rounds": 1}, 1),
    ("illegal-move", "warkocz", 3, {"target": 4}, 1),
    ("out-of-turn", "bura", 3, {"rounds": 1}, 1),
    ("false-pass", "warkocz", 3, {"target": 4}, 1),
    ("equivocate", "bura", 3, {"rounds": 1}, 1),
    ("withhold-key", "bura", 3, {"rounds": 1}, 1),
    ("rekey-peek", "bura", 3, {"rounds": 1}, 1),
    ("frame-accuser", "bura", 3, {"rounds": 1}, 1),
    ("false-timeout", "bura", 3, {"rounds": 1}, 0),
    ("forged-evidence", "bura", 3, {"rounds": 1}, 0),
    ("rewrite-end", "warkocz", 2, {"target": 2}, 1),
]
# Hostile logs from the fuzzers: (match, forgeries, seeds).
FORGED_MATCHES = [("bura3", range(3)), ("warkocz3", range(1))]
DAMAGED = 24  # damaged files of the bura3 log
ABORT_STRIDE = 4  # forged aborts: one every this many places of the bura3 log


# ----- the cases ---------------------------------------------------------------------------

def replay_cases() -> dict[str, bytes]:
    return {f"replays/{p.name}": p.read_bytes() for p in sorted((ROOT / "replays").glob("*.p2plog"))}


def cheat_cases() -> dict[str, bytes]:
    return {f"cheats/{p.name}": p.read_bytes() for p in sorted(LOGS.glob("*.p2plog"))}


def pair_cases() -> list[tuple[str, str, str]]:
    """(name, first log, second log): a cheater's own log beside the honest one."""
    out = []
    for cheat in ("forged-evidence", "rewrite-end"):
        honest, own = f"cheats/{cheat}-honest.p2plog", f"cheats/{cheat}-cheater.p2plog"
        if (LOGS / Path(honest).name).exists() and (LOGS / Path(own).name).exists():
            out.append((f"pair/{cheat}", honest, own))
            out.append((f"pair/{cheat}-reversed", own, honest))
    return out


def hostile_cases() -> dict[str, bytes]:
    """Forged, re-chained and damaged logs made by the fuzzers' own forgers, from fixed seeds."""
    sys.path.append(str(ROOT))
    from fuzz import kit
    from tests.test_fuzz_entries import FORGERIES, _byte_mutation, forge

    out: dict[str, bytes] = {}
    for name, seeds in FORGED_MATCHES:
        m = kit.match(name)
        out[f"fuzz/{name}-genuine"] = m.raw_file()
        for how in FORGERIES:
            for seed in seeds:
                data, _, _ = forge(m, how, random.Random(f"forge/{name}/{how}/{seed}"))
                out[f"fuzz/{name}-{how}-{seed}"] = data
    m = kit.match("bura3")
    data = m.raw_file()
    rng = random.Random("damage")
    for i in range(DAMAGED):
        out[f"fuzz/damaged-{i}"] = _byte_mutation(rng, data, m)
    out.update(forged_aborts())
    return out


def forged_aborts() -> dict[str, bytes]:
    """An abort by any seat naming anybody, with junk or genuine evidence, at
    places of a genuine log; each one the machine takes is played on to the end
    by honest seats (as test_forged_aborts_anywhere)."""
    from fuzz import kit
    from p2pcards.protocol.driver import SeatDriver
    from p2pcards.protocol.log import HEADER, Entry
    from tests.test_fuzz_entries import _finish_after

    m = kit.match("bura3")
    rng = random.Random("golden-aborts")
    out: dict[str, bytes] = {}
    d = SeatDriver(m.genesis, None)
    for k in range(1, len(m.entries) - 1):
        if k % ABORT_STRIDE == 0:
            culprit = rng.choice([None] + list(range(m.players)))
            author = d.machine.referee(culprit) if rng.random() < 0.8 else rng.randrange(m.players)
            kind = rng.choice(["no-card", "timeout", "illegal-move", "phantom-card", "equivocate", "bad-shuffle"])
            payload = {"culprit": culprit, "kind": kind, "detail": "forged"}
            if rng.random() < 0.6:
                payload["evidence"] = rng.choice([[m.entries[k].raw], [b"junk"], [m.entries[k - 1].raw, m.entries[k].raw]])
            raw = kit.raw_entry(k, d.log.head_hash, author, "abort", payload, m.signers[author])
            snap = kit.Snapshot(d)
            try:
                d.receive(Entry.from_wire(raw))
            except kit.REFUSALS:
                pass
            else:
                log = _finish_after(m, list(d.log.entries))[0].log
                out[f"fuzz/abort-{k}"] = HEADER + b"".join(len(e.raw).to_bytes(4, "big") + e.raw for e in log.entries)
                snap.restore(d)
        d.receive(m.entries[k])
    return out


def all_cases() -> dict[str, bytes]:
    return {**replay_cases(), **cheat_cases(), **hostile_cases()}


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ----- the audit's answers -----------------------------------------------------------------

def audit_json(path: Path, **options) -> dict:
    from p2pcards.audit import audit_file

    report = audit_file(path, **options)
    return {"exit": report.exit_code, "report": report.as_json()}


def pair_json(a: Path, b: Path) -> dict:
    from p2pcards.audit import audit_pair

    report = audit_pair(a, b)
    return {"exit": report.exit_code, "report": report.as_json()}


def answers(cases: dict[str, bytes], pairs: list[tuple[str, str, str]], workdir: Path,
            **options) -> dict[str, dict]:
    """What the audit (the code on the path) says of every case, with each log's SHA-256
    (``options``: of ``audit_file``)."""
    workdir.mkdir(parents=True, exist_ok=True)
    paths = {}
    out = {}
    for i, (name, data) in enumerate(sorted(cases.items())):
        path = workdir / f"case-{i}.p2plog"
        path.write_bytes(data)
        paths[name] = path
        out[name] = {"sha256": digest(data), **audit_json(path, **options)}
    for name, a, b in pairs:
        out[name] = {"sha256": digest(cases[a] + cases[b]), **pair_json(paths[a], paths[b])}
    return out


def canonical(obj) -> str:
    return json.dumps(obj, indent=1, sort_keys=True, ensure_ascii=False)


# ----- playing the cheats ------------------------------------------------------------------

def play_cheats(only: list[str] | None = None) -> None:
    import tempfile

    import trio

    sys.path.append(str(ROOT))
    from p2pcards.testing.cheats import forged_path
    from tests.helpers import play_network_match

    LOGS.mkdir(parents=True, exist_ok=True)
    for cheat, game, players, options, cheater in CHEAT_CASES:
        if only and cheat not in only:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            results = trio.run(lambda: play_network_match(game, players, options, Path(tmp), cheat=cheat,
                                                         cheater=cheater, turn_timeout=3))
            honest = next(r for r in results if r.seat != cheater)
            (LOGS / f"{cheat}-honest.p2plog").write_bytes(Path(honest.log_path).read_bytes())
            own = Path(results[cheater].log_path)
            if cheat == "forged-evidence":
                own = Path(forged_path(own))
            if own.exists() and own.read_bytes() != Path(honest.log_path).read_bytes() and cheat in (
                    "forged-evidence", "rewrite-end"):
                (LOGS / f"{cheat}-cheater.p2plog").write_bytes(own.read_bytes())
        print(cheat, "played", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    cheats = sub.add_parser("cheats", help="play the selfplay cheats again into tests/audit_golden/logs/")
    cheats.add_argument("only", nargs="*")
    write = sub.add_parser("write", help="write tests/audit_golden/golden.json with the code on PYTHONPATH")
    write.add_argument("--out", default=str(GOLDEN))
    args = parser.parse_args(argv)
    if args.command == "cheats":
        play_cheats(args.only)
        return 0
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        result = answers(all_cases(), pair_cases(), Path(tmp))
    Path(args.out).write_text(canonical(result) + "\n", encoding="utf-8")
    print(f"{len(result)} cases written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
