"""atheris harness: the entry checker (SeatDriver.receive) at eight places of
a genuine log, fed arbitrary bytes as the next entry; seeded with the genuine
entries so that mutations start from real shuffles, keys and moves.

    PYTHONPATH=/work/main /work/venv/bin/python fuzz/entries.py -max_total_time=120 fuzz/corpus/entries

Two modes, chosen by the first byte's high bit:

* raw (bit clear): the rest is the entry's wire bytes. The fuzzer holds no
  key, so the property is strict: Entry.from_wire or SeatDriver.receive raises
  LogError/Violation and leaves the driver as it was, or the entry is byte for
  byte the genuine next one. Anything else accepted is a forgery.
* signed (bit set): the rest is an entry *body*, which the harness signs with
  the key of the seat it names (a dishonest player writing anything it likes),
  so the bytes reach the TableMachine. Refusals must leave the driver as it
  was; an accepted action may not claim a card that is not at its position.

Any other exception is a crash.
"""

import msgpack

import os
import sys

import atheris

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

with atheris.instrument_imports():
    from p2pcards.protocol.log import Entry, LogError
    from p2pcards.protocol.machine import Violation
    from p2pcards.protocol.knowledge import shown_by
    from p2pcards.protocol.driver import SeatDriver

from fuzz import kit  # noqa: E402

MATCH = kit.match("bura3")
N = len(MATCH.entries)
PLACES = sorted({1, 2, 4, 5, 6, N // 3, N // 2, N - 3, N - 2, N - 1})[:8]
DRIVERS = {}
for place in PLACES:
    d = SeatDriver(MATCH.genesis, 1, MATCH.signers[1], seeds=MATCH.seeds[1])
    for e in MATCH.entries[1:place]:
        d.receive(e)
    DRIVERS[place] = d


def _signed(body: bytes) -> bytes:
    try:
        author = msgpack.unpackb(body, raw=False, strict_map_key=False)[2]
    except Exception:
        author = 0
    key = MATCH.signers[author if type(author) is int and 0 <= author < MATCH.players else 0]
    return msgpack.packb([body, key.sign(body)], use_bin_type=True)


def one_input(data: bytes) -> None:
    if not data:
        return
    place = PLACES[data[0] % len(PLACES)]
    signed = bool(data[0] & 0x80)
    raw = _signed(data[1:]) if signed else data[1:]
    try:
        entry = Entry.from_wire(raw)
    except LogError:
        return
    driver = DRIVERS[place]
    snap = kit.Snapshot(driver)
    before = kit.fingerprint(driver)
    try:
        driver.receive(entry)
    except (LogError, Violation):
        assert kit.fingerprint(driver) == before, "a refused entry changed the driver"
        return
    accepted = entry.raw
    snap.restore(driver)
    if not signed:
        assert accepted == MATCH.entries[place].raw, f"forged entry accepted at {place}: {entry!r}"
    elif entry.kind == "action":
        codes = MATCH.codes[snap.machine.deal.index]
        p = entry.payload
        for position, code in shown_by(p["action"], p.get("positions") or []).items():
            assert codes is None or codes[position] == code, f"phantom card accepted: {code} at {position}"


def seed_corpus(directory: str) -> None:
    os.makedirs(directory, exist_ok=True)
    for i, place in enumerate(PLACES):
        for j, e in enumerate(MATCH.entries[max(1, place - 1):place + 1]):
            with open(os.path.join(directory, f"p{place}-{j}"), "wb") as f:
                f.write(bytes([i]) + e.raw)
            with open(os.path.join(directory, f"s{place}-{j}"), "wb") as f:
                f.write(bytes([0x80 | i]) + e.body)


def main() -> None:
    if len(sys.argv) > 1 and not sys.argv[-1].startswith("-"):
        seed_corpus(sys.argv[-1])
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
