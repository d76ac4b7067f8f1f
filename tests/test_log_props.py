"""Every corruption of a real finished log is refused with LogError, and the
recovery read of a corrupted file returns a prefix of the genuine log."""

import msgpack
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from p2pcards.protocol import log as L
from p2pcards.protocol.log import LogError
from tests.helpers import build_log

LOG, IDS = build_log(n_players=3, moves=12)
OTHER, _ = build_log(n_players=3, moves=12, session=b"another-session")  # same players, another game
ENTRIES = [e.raw for e in LOG]
DATA = LOG.to_bytes()
N = len(ENTRIES)

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def file_of(raws):
    return L.HEADER + b"".join(len(r).to_bytes(4, "big") + r for r in raws)


def resigned(raw, seat_key):
    """The same entry with a signature made by another key."""
    e = L.Entry.from_wire(raw)
    if e.multisig:
        sigs = list(e.signature)
        sigs[seat_key % len(sigs)] = IDS[(seat_key + 1) % len(IDS)].sign(e.body)
        return msgpack.packb([e.body, sigs])
    return msgpack.packb([e.body, IDS[(e.author + 1 + seat_key % 2) % len(IDS)].sign(e.body)])


@st.composite
def corruption(draw):
    op = draw(st.sampled_from(["flip", "drop", "duplicate", "swap", "truncate", "resign",
                               "splice", "insert_foreign", "garbage"]))
    raws = list(ENTRIES)
    if op == "flip":
        pos = draw(st.integers(0, len(DATA) - 1))
        mask = draw(st.integers(1, 255))
        return op, DATA[:pos] + bytes([DATA[pos] ^ mask]) + DATA[pos + 1:]
    if op == "truncate":
        return op, DATA[: draw(st.integers(0, len(DATA) - 1))]
    if op == "garbage":
        return op, DATA + draw(st.binary(min_size=1, max_size=64))
    i = draw(st.integers(0, N - 1))
    if op == "drop":
        del raws[i]
    elif op == "duplicate":
        raws.insert(i, raws[i])
    elif op == "swap":
        j = draw(st.integers(0, N - 1).filter(lambda j: j != i))
        raws[i], raws[j] = raws[j], raws[i]
    elif op == "resign":
        raws[i] = resigned(raws[i], draw(st.integers(0, 5)))
    elif op == "splice":
        raws[i] = OTHER[i].raw
    elif op == "insert_foreign":
        raws.insert(i, OTHER[draw(st.integers(0, N - 1))].raw)
    return op, file_of(raws)


SESSION = LOG.table.session


def check_refused(data):
    with pytest.raises(LogError):
        L.parse_log(data, finished=True)
    with pytest.raises(LogError):
        L.parse_log(data, finished=True, session=SESSION)
    try:
        # A resuming peer knows its session (else a foreign table entry, valid by
        # itself, would be a valid one-entry prefix of another game).
        rec = L.parse_log(data, strict=False, session=SESSION)
    except LogError:
        return  # a broken header: nothing to recover
    # Whatever was recovered is the genuine log's beginning, byte for byte.
    assert rec.entries == LOG.entries[: len(rec)]
    assert data.startswith(rec.to_bytes())
    if rec.cut is not None:
        assert rec.cut.offset == len(rec.to_bytes()) and rec.cut.discarded == len(data) - rec.cut.offset


def test_the_genuine_log_reads():
    assert L.parse_log(DATA, finished=True).entries == LOG.entries
    assert LOG.agreed and N == 14


@settings(SETTINGS, max_examples=400)
@given(corruption())
def test_every_single_corruption_is_refused(c):
    op, data = c
    assert data != DATA
    check_refused(data)


@SETTINGS
@given(corruption(), st.lists(st.tuples(st.integers(0, 10**6), st.integers(1, 255)), min_size=1, max_size=3))
def test_corruption_followed_by_flips_is_refused(c, flips):
    data = bytearray(c[1])
    for pos, mask in flips:
        if data:
            data[pos % len(data)] ^= mask
    assume(bytes(data) != DATA)
    check_refused(bytes(data))


@SETTINGS
@given(st.integers(0, N - 1), st.integers(0, N - 1))
def test_splicing_another_games_entries_is_refused(i, j):
    raws = list(ENTRIES)
    raws[i:] = [e.raw for e in OTHER][j:]
    assume((i, j) != (0, 0))  # that is just the other game's whole, valid log
    check_refused(file_of(raws))


@SETTINGS
@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_escape_as_other_errors(blob):
    try:
        L.Entry.from_wire(blob)
    except LogError:
        pass
    try:
        L.parse_log(L.HEADER + blob)
    except LogError:
        pass


msgpack_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1) | st.floats() | st.text(max_size=8)
    | st.binary(max_size=70),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=4) | st.integers(-2**63, 2**64 - 1), inner, max_size=4),
    max_leaves=20,
)


@SETTINGS
@given(st.lists(msgpack_values, min_size=0, max_size=6), msgpack_values)
def test_structured_nonsense_is_refused_cleanly(body_fields, sig):
    # Bodies and signatures of the right general shape but arbitrary contents.
    raw = msgpack.packb([msgpack.packb(body_fields), sig])
    log = L.GameLog()
    try:
        e = L.Entry.from_wire(raw)
    except LogError:
        return
    with pytest.raises(LogError):
        log.append(e)  # no signature made by a test key can be in here


@SETTINGS
@given(st.integers(1, len(ENTRIES[-1]) + 3))
def test_torn_final_append_recovers_everything_before_it(cut):
    data = DATA[: len(DATA) - cut]
    with pytest.raises(LogError, match=f"entry {N - 1}: truncated"):
        L.parse_log(data)
    rec = L.parse_log(data, strict=False)
    assert rec.entries == LOG.entries[:-1] and not rec.is_finished and rec.cut.index == N - 1


GOOD_TABLE = LOG.genesis.payload


@SETTINGS
@given(st.sampled_from(sorted(GOOD_TABLE) + ["players.0", "players.1", "extra_key"]), msgpack_values)
def test_table_payload_with_any_field_replaced_is_handled(field, value):
    import copy
    payload = copy.deepcopy(GOOD_TABLE)
    if field.startswith("players."):
        payload["players"][int(field[-1])] = value
    else:
        payload[field] = value
    try:
        info = L.TableInfo.from_payload(payload)
    except LogError:
        return
    # Accepted only if still a valid table (e.g. other options, a new extra field).
    assert len(info.players) >= 1 and all(L.key_problem(k) is None for k in info.keys)
