"""Whole deals: showing cards, the audit, blame for every cheat, privacy,
the seat driver's order checks, strict parsing, and the byte budget."""

import pytest

from p2pcards.cards import deck_for
from p2pcards.mental import (
    CHEATS, BadMessage, DealSecrets, MentalError, NoCard, SeatDeal, card_keys_step,
    check_deal, encode_deck, open_card, parse_card_keys, parse_commit, parse_rekey,
    parse_reveal, simulate_deal, strip,
)
from p2pcards.mental.group import N, scalar_to_bytes

SEEDS4 = [bytes([0x40 + i]) * 32 for i in range(4)]


@pytest.mark.parametrize("game, players", [("bura", 2), ("bura", 4), ("warkocz", 3), ("kanasta", 4)])
def test_honest_deal(game, players):
    res = simulate_deal(game, players, rounds=3, verify="once")
    assert res.aborted is None and res.audit.ok, (res.aborted, res.audit.findings)
    # Every physical card lies in exactly one position; twins map to their code.
    assert sorted(res.audit.physical) == list(range(len(deck_for(game))))
    assert sorted(res.audit.cards) == sorted(deck_for(game))
    for seat in range(players):
        for p, code in res.seen[seat].items():
            assert res.audit.cards[p] == code and res.audit.physical[p] == res.physical[seat][p]
        assert set(res.seen[seat]) == {p for p in range(len(deck_for(game))) if p % players == seat}


def test_deal_is_a_fresh_shuffle_each_time():
    a = simulate_deal("bura", 2, rounds=1, verify="none")
    b = simulate_deal("bura", 2, rounds=1, verify="none")
    assert a.audit.physical != b.audit.physical  # 1 in 36! to fail


def test_show_to_all_and_stock_stays_hidden():
    plan = {0: 0, 1: 1, 2: None}
    res = simulate_deal("bura", 2, rounds=2, plan=plan, seeds=SEEDS4[:2])
    assert res.aborted is None and res.audit.ok
    assert set(res.seen[0]) == {0, 2} and set(res.seen[1]) == {1, 2}
    assert res.seen[0][2] == res.seen[1][2]
    keyed = {(seat, p) for seat, msg in res.record.card_keys for p in parse_card_keys(msg, 36)}
    assert keyed == {(1, 0), (0, 1), (0, 2), (1, 2)}  # never a key of the stock


@pytest.mark.parametrize("kind", CHEATS)
@pytest.mark.parametrize("cheater", [0, 2])
def test_every_cheat_is_caught_and_blamed(kind, cheater):
    res = simulate_deal("bura", 3, rounds=6, verify="all", cheat=(kind, cheater), seeds=SEEDS4[:3])
    assert res.audit.blamed() == {cheater}, res.audit.findings
    if kind == "bad-reveal":
        assert res.aborted is None  # found only by the audit
    else:
        assert res.aborted is not None
    expected = {"bad-shuffle": "bad-proof", "substitute": "bad-proof", "wrong-key": "wrong-key",
                "bad-rekey": "bad-rekey", "bad-reveal": "bad-reveal"}[kind]
    assert expected in {f.kind for f in res.audit.findings}


def test_bad_shuffle_without_proofs_is_blamed_at_the_audit():
    res = simulate_deal("warkocz", 3, rounds=0, cheat=("substitute", 1), seeds=SEEDS4[:3])
    assert "no card" in res.aborted
    assert [(f.seat, f.kind) for f in res.audit.findings] == [(1, "bad-shuffle")]


def test_wrong_key_is_noticed_by_the_receiver():
    res = simulate_deal("bura", 3, rounds=2, cheat=("wrong-key", 1), seeds=SEEDS4[:3])
    assert res.aborted.startswith("seat 0: position 0 decrypts to no card")
    f, = res.audit.findings
    assert (f.seat, f.kind, f.position) == (1, "wrong-key", 0)


def test_privacy_all_other_secrets_do_not_open_a_card():
    res = simulate_deal("bura", 4, rounds=2, seeds=SEEDS4)
    enc = encode_deck("bura")
    final = parse_rekey(res.record.rekeys[-1], 36)
    others = [DealSecrets(s) for s in SEEDS4[1:]]
    for p in (0, 4, 8):  # seat 0's cards
        x = strip(final[p], [o.card_key(p) for o in others])
        with pytest.raises(NoCard):
            enc.decode(x)
        # And stripping the deck keys as well does not help either.
        with pytest.raises(NoCard):
            enc.decode(strip(x, [o.deck_key for o in others]))
        assert open_card(enc, final[p], [DealSecrets(SEEDS4[0]).card_key(p)] +
                         [o.card_key(p) for o in others]) == res.seen[0][p]


def test_audit_names_the_missing_reveal_and_keeps_the_rest():
    res = simulate_deal("bura", 3, rounds=2, seeds=SEEDS4[:3])
    rec = res.record
    rec.reveals[1] = None
    audit = check_deal(rec)
    assert [(f.seat, f.kind) for f in audit.findings] == [(1, "missing-reveal")]
    assert audit.cards == [None] * 36


def test_audit_of_malformed_messages():
    res = simulate_deal("bura", 2, rounds=2, seeds=SEEDS4[:2])
    rec = res.record
    rec.commits[0] = {"commit": b"short"}
    rec.card_keys.append((1, {"keys": [[99, b"\1" * 32]]}))
    rec.rekeys[1] = {"deck": b"\0" * 5}
    kinds = {(f.seat, f.kind) for f in check_deal(rec).findings}
    assert kinds == {(0, "bad-commit"), (1, "bad-keys"), (1, "bad-rekey")}


def test_audit_after_an_abort_in_the_shuffle():
    res = simulate_deal("bura", 4, rounds=4, cheat=("substitute", 1), seeds=SEEDS4)
    assert len(res.record.shuffles) == 2 and not res.record.rekeys
    assert res.audit.blamed() == {1}


def test_seat_deal_enforces_the_order():
    seats = [SeatDeal("bura", 2, s, rounds=2, secrets=DealSecrets(SEEDS4[s])) for s in range(2)]
    with pytest.raises(MentalError, match="out of turn"):
        seats[1].shuffle(b"c")
    for s in range(2):
        for t in range(2):
            seats[t].receive_commit(s, seats[s].commit())
    with pytest.raises(MentalError, match="already committed"):
        seats[0].receive_commit(1, seats[1].commit())
    assert seats[0].stage == "shuffle" and seats[0].next_seat == 0
    msg = seats[1].shuffle  # not its turn yet
    with pytest.raises(MentalError, match="out of turn"):
        msg(b"c")
    m0 = seats[0].shuffle(b"c0")
    with pytest.raises(MentalError, match="out of turn"):
        seats[1].receive_shuffle(1, b"c0", m0)
    with pytest.raises(MentalError, match="not a seat"):
        seats[1].receive_keys(5, {"keys": []})
    with pytest.raises(MentalError, match="before the re-keying"):
        seats[1].receive_keys(0, card_keys_step(seats[0].secrets, [1]))
    with pytest.raises(MentalError, match="cards are shown only after"):
        seats[1].open(0)


def test_seat_deal_breaks_on_a_bad_proof_and_keeps_it_for_the_audit():
    seats = [SeatDeal("bura", 2, s, rounds=4, secrets=DealSecrets(SEEDS4[s])) for s in range(2)]
    for s in range(2):
        for t in range(2):
            seats[t].receive_commit(s, seats[s].commit())
    m0 = seats[0].shuffle(b"c0")
    with pytest.raises(MentalError):
        seats[1].receive_shuffle(0, b"another context", m0)
    assert seats[1].broken and seats[1].record.shuffles == [(b"another context", m0)]
    with pytest.raises(MentalError, match="aborted"):
        seats[1].shuffle(b"c1")


def test_seat_deal_missing_keys_and_double_keys():
    res = simulate_deal("bura", 2, rounds=1, plan={0: 0}, seeds=SEEDS4[:2])
    seat = SeatDeal("bura", 2, 0, rounds=1, secrets=DealSecrets(SEEDS4[0]))
    for s in range(2):
        seat.receive_commit(s, res.record.commits[s])
    for s in range(2):
        seat.receive_shuffle(s, *res.record.shuffles[s])
    for s in range(2):
        seat.receive_rekey(s, res.record.rekeys[s])
    assert seat.missing_keys(0) == [1] and not seat.can_open(0)
    with pytest.raises(MentalError, match="lacks the keys of seats \\[1\\]"):
        seat.open(0)
    seat.receive_keys(*res.record.card_keys[0])
    assert seat.open(0) == res.seen[0][0]
    wrong = {"keys": [[0, scalar_to_bytes(5)]]}
    with pytest.raises(MentalError, match="two different keys"):
        seat.receive_keys(1, wrong)


def test_parsers_reject_garbage():
    for bad in (None, [], {"commit": b"x" * 32, "more": 1}, {"commit": "x" * 32}):
        with pytest.raises(BadMessage):
            parse_commit(bad)
    for bad in ({"seed": b"x" * 31}, {"seeds": b"x" * 32}, b"x" * 32):
        with pytest.raises(BadMessage):
            parse_reveal(bad)
    good = scalar_to_bytes(7)
    for bad, match in [({"keys": []}, "1..36"), ({"keys": [[0, good]] * 2}, "twice"),
                       ({"keys": [[36, good]]}, "not in 0..35"), ({"keys": [[True, good]]}, "not in"),
                       ({"keys": [[-1, good]]}, "not in"), ({"keys": [[0, b"\0" * 32]]}, r"\[1, n-1\]"),
                       ({"keys": [[0, scalar_to_bytes(N)]]}, r"\[1, n-1\]"), ({"keys": [0]}, "pair"),
                       ({"keys": "ab"}, "list")]:
        with pytest.raises(BadMessage, match=match):
            parse_card_keys(bad, 36)
    assert parse_card_keys({"keys": [(3, good), [0, good]]}, 36) == {3: 7, 0: 7}


def test_byte_budget_of_a_108_card_4_player_deal():
    # The opening of kanasta: 11 cards each, the upcard to all; 40-round proofs.
    plan = {p: p % 4 for p in range(44)}
    plan[44] = None
    res = simulate_deal("kanasta", 4, plan=plan, verify="once", audit=False)
    assert res.aborted is None
    assert max(res.sent) <= 25_000, res.sent


def test_a_rekey_copying_a_card_shows_as_a_duplicate():
    # Only the first re-keyer can copy a card: later ones see per-card keys of
    # other positions on it. Seat 0 puts the card of position 0 on position 1.
    from p2pcards.mental.group import deck_bytes, encrypt
    seats = [SeatDeal("bura", 2, s, rounds=1, secrets=DealSecrets(SEEDS4[s])) for s in range(2)]
    for s in range(2):
        for t in range(2):
            seats[t].receive_commit(s, seats[s].commit())
    for s in range(2):
        m = seats[s].shuffle(b"c%d" % s)
        for t in range(2):
            seats[t].receive_shuffle(s, b"c%d" % s, m)
    sec0, ins = seats[0].secrets, seats[0].deck
    out = [encrypt(sec0.rekey_scalar(j), x) for j, x in enumerate(ins)]
    out[1] = encrypt(sec0.rekey_scalar(1), ins[0])
    bad = {"deck": deck_bytes(out)}
    for t in range(2):
        seats[t].receive_rekey(0, bad)
    m1 = seats[1].rekey()
    for t in range(2):
        seats[t].receive_rekey(1, m1)
    seats[1].receive_keys(0, seats[0].keys([0, 1]))
    seats[1].open(0)
    with pytest.raises(NoCard, match="positions 0 and 1 decrypt to the same physical card"):
        seats[1].open(1)
    for s in range(2):
        seats[1].receive_reveal(s, seats[s].reveal())
    assert [(f.seat, f.kind, f.position) for f in seats[1].audit().findings] == [(0, "bad-rekey", 1)]


def test_key_message_needs_positions():
    with pytest.raises(MentalError, match="at least one position"):
        card_keys_step(DealSecrets(SEEDS4[0]), [])


@pytest.mark.slow
def test_full_kanasta_deal_every_seat_checks_every_proof():
    res = simulate_deal("kanasta", 4, verify="all")
    assert res.aborted is None and res.audit.ok
    assert sorted(res.audit.cards) == sorted(deck_for("kanasta"))
    assert max(res.sent) <= 25_000


def test_receive_reveal_reports_bad_reveals():
    seat = SeatDeal("bura", 2, 0, rounds=1, secrets=DealSecrets(SEEDS4[0]))
    other = DealSecrets(SEEDS4[1])
    seat.receive_commit(1, {"commit": other.commitment})
    assert seat.receive_reveal(1, {"seed": other.seed}) is True
    assert seat.receive_reveal(1, {"seed": SEEDS4[2]}) is False
    assert seat.receive_reveal(1, {"seed": "not bytes"}) is False
    assert seat.receive_reveal(0, {"seed": SEEDS4[0]}) is False  # seat 0 never committed
    assert seat.record.reveals[1] == {"seed": "not bytes"}


def test_simulate_rejects_bad_arguments():
    with pytest.raises(ValueError, match="not in 0..35"):
        simulate_deal("bura", 2, 1, plan={36: 0})
    with pytest.raises(ValueError, match="not a seat"):
        simulate_deal("bura", 2, 1, plan={0: 2})
    with pytest.raises(ValueError, match="unknown cheat"):
        simulate_deal("bura", 2, 1, cheat=("nope", 0))
