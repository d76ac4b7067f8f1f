"""atheris harness: the log reader (strict and recovery) and the audit on
arbitrary bytes, seeded with a genuine finished log (see seed_corpus()).

    PYTHONPATH=/work/main /work/venv/bin/python fuzz/logreader.py -max_total_time=120 fuzz/corpus/log

Property: only LogError comes out of parse_log; a recovery read keeps genuine
entries only; a strictly readable file that is not the genuine one is either
unfinished or fails the audit (exit 1 or 2), never exit 0.
"""

import os
import sys

import atheris

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

with atheris.instrument_imports():
    from p2pcards.audit import CLEAN, audit_log
    from p2pcards.protocol.log import END, LogError, parse_log

from fuzz import kit  # noqa: E402

MATCH = kit.match("bura3")
GENUINE = MATCH.raw_file()
RAWS = {e.raw for e in MATCH.entries}
BODIES = {e.body for e in MATCH.entries}


def one_input(data: bytes) -> None:
    try:
        log = parse_log(data, strict=False)
    except LogError as exc:
        assert exc.index is None, exc
    else:
        for e in log.entries:
            if log.genesis.raw == MATCH.genesis.raw:
                assert e.raw in RAWS or (e.kind == END and e.body in BODIES), e
    try:
        log = parse_log(data)
    except LogError:
        return
    if data != GENUINE and log.is_finished and log.genesis.raw == MATCH.genesis.raw:
        report = audit_log(log)
        assert report.exit_code != CLEAN, "a changed log passed the audit"


def seed_corpus(directory: str) -> None:
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "genuine.p2plog"), "wb") as f:
        f.write(GENUINE)


def main() -> None:
    if len(sys.argv) > 1 and not sys.argv[-1].startswith("-"):
        seed_corpus(sys.argv[-1])
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
