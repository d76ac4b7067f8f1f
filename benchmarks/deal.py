"""CPU time and bytes per player of one mental-poker deal, against textbook SRA.

    PYTHONPATH=. python benchmarks/deal.py --players 4 --cards 108 --json

Per player (the mean over seats): its own shuffle and proof, checking every
other seat's shuffle proof, its re-key and proof, checking every other
seat's re-key proof, publishing its per-card keys and checking everybody
else's against their commitments, decrypting the cards shown to it, its
commitment and final reveal. (Protocol version 2: every proof has full
strength, 2^-128; there is nothing to tune.) The deal shown is the
opening of a canasta-like game: ``--hand`` cards to each seat one at a time,
then one card to all (the upcard); the rest stays in the stock.

The SRA baseline does the same deal without proofs with Pohlig-Hellman/SRA
mod the 2048-bit safe prime of RFC 3526 (group 14) and Python ``pow``:
per seat, a shuffle (one pow a card), a re-key (one pow a card, the two
exponents combined) and one pow per card shown to it. By default every one
of those pows is run; ``--sra-sample K`` times K of them instead and
extrapolates to the count.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import random
import secrets
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from p2pcards.cards import DECKS, deck_for  # noqa: E402
from p2pcards import PROTOCOL_VERSION  # noqa: E402
from p2pcards.mental import SOUNDNESS_BITS  # noqa: E402
from p2pcards.testing.mental_sim import simulate_deal  # noqa: E402

MODP_2048 = int(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A0879"
    "8E3404DDEF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B"
    "0BFF5CB6F406B7EDEE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA4836"
    "1C55D39A69163FA8FD24CF5F83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804"
    "F1746C08CA18217C32905E462E36CE3BE39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6"
    "955817183995497CEA956AE515D2261898FA051015728E5A8AACAA68FFFFFFFFFFFFFFFF", 16)


def game_with(cards: int) -> str:
    for game in DECKS:
        if len(deck_for(game)) == cards:
            return game
    raise SystemExit(f"no game has a {cards}-card deck; sizes: "
                     + ", ".join(f"{g} {len(deck_for(g))}" for g in DECKS))


def deal_plan(players: int, hand: int, size: int) -> dict[int, int | None]:
    if players * hand + 1 > size:
        raise SystemExit(f"{players} hands of {hand} and an upcard need more than {size} cards")
    plan: dict[int, int | None] = {p: p % players for p in range(players * hand)}
    plan[players * hand] = None
    return plan


def sra_key(p: int) -> tuple[int, int]:
    while True:
        e = secrets.randbelow(p - 3) + 2
        if math.gcd(e, p - 1) == 1:
            return e, pow(e, -1, p - 1)


def sra_deal(players: int, size: int, plan: dict, sample: int | None) -> float:
    """CPU seconds per player of the SRA deal without proofs."""
    p = MODP_2048
    # Cards as squares of hashes: quadratic residues, against Lipton's leak.
    deck = [pow(int.from_bytes(hashlib.sha512(b"card%d" % i).digest(), "big"), 2, p)
            for i in range(size)]
    shown = [sum(1 for who in plan.values() if who in (s, None)) for s in range(players)]
    pows_per_seat = [2 * size + shown[s] for s in range(players)]
    if sample:
        e, _ = sra_key(p)
        xs = [deck[i % size] for i in range(sample)]
        t = time.process_time()
        for x in xs:
            pow(x, e, p)
        per_pow = (time.process_time() - t) / sample
        return per_pow * statistics.mean(pows_per_seat)
    cpu = [0.0] * players
    keys = [sra_key(p) for _ in range(players)]
    card_keys = [[sra_key(p) for _ in range(size)] for _ in range(players)]
    for s, (e, _) in enumerate(keys):
        t = time.process_time()
        deck = [pow(x, e, p) for x in deck]
        random.shuffle(deck)
        cpu[s] += time.process_time() - t
    for s, (_, d) in enumerate(keys):
        t = time.process_time()
        deck = [pow(x, d * card_keys[s][j][0] % (p - 1), p) for j, x in enumerate(deck)]
        cpu[s] += time.process_time() - t
    for s in range(players):
        t = time.process_time()
        for pos, who in plan.items():
            if who in (s, None):
                d = 1
                for t_seat in range(players):
                    d = d * card_keys[t_seat][pos][1] % (p - 1)
                pow(deck[pos], d, p)
        cpu[s] += time.process_time() - t
    return statistics.mean(cpu)


def scalar_mult_ms(count: int = 400) -> float:
    """The cost of one scalar multiplication of secp256k1 right now, with a
    full-size key as in a deal (libsecp256k1's multiplication takes about
    half as long for a 64-bit one)."""
    from p2pcards.mental import N, encode_deck, encrypt_all
    xs = list(encode_deck("kanasta").values) * (count // 108 + 1)
    t = time.process_time()
    encrypt_all(N // 3, xs[:count])
    return (time.process_time() - t) / count * 1000


# The libsecp256k1 calls a deal is made of, and what each one costs alone.
GROUP_CALLS = {
    "secp256k1_ec_pubkey_tweak_mul": "k*X (constant time)",
    "secp256k1_ecdsa_recover": "a*X + b*G (variable time, checks only)",
    "secp256k1_ec_pubkey_create": "k*G (fixed base)",
    "secp256k1_ec_pubkey_parse": "reading a compressed point",
}


def group_floor(game: str, players: int, plan: dict) -> dict:
    """Count the libsecp256k1 calls of one deal per player (cProfile counts
    C calls exactly), time each kind of call alone right now, and give their
    product: the CPU a deal cannot go below with these operations, whatever
    the Python around them costs."""
    import cProfile
    import pstats

    from coincurve import PublicKey
    from p2pcards.mental import encode_deck
    from p2pcards.mental.group import N, base_mul, mul, public_mul_add_base, scalar_to_bytes

    prof = cProfile.Profile()
    prof.enable()
    simulate_deal(game, players, plan, verify="all", audit=False)
    prof.disable()
    counts = {name: 0 for name in GROUP_CALLS}
    for (_, _, func), stat in pstats.Stats(prof).stats.items():
        for name in counts:
            if func.endswith("." + name + ">"):  # "<built-in method _libsecp256k1.NAME>"
                counts[name] += stat[1]
    pts = [base_mul(k) for k in range(2, 202)]
    encs = [p.format() for p in pts]
    ks = [(k * 0x9E3779B97F4A7C15F39CC0605CEDC834) % N for k in range(3, 203)]
    kbs = [scalar_to_bytes(k) for k in ks]
    timed = {
        "secp256k1_ec_pubkey_tweak_mul": lambda: [mul(p, k) for p, k in zip(pts, ks)],
        "secp256k1_ecdsa_recover": lambda: [public_mul_add_base(x, k, k + 1) for x, k in zip(encs, ks)],
        "secp256k1_ec_pubkey_create": lambda: [PublicKey.from_valid_secret(k) for k in kbs],
        "secp256k1_ec_pubkey_parse": lambda: [PublicKey(x) for x in encs],
    }
    unit = {}
    for name, f in timed.items():
        best = math.inf
        for _ in range(5):
            t = time.process_time()
            f()
            best = min(best, time.process_time() - t)
        unit[name] = best / len(pts)
    per_player = {name: counts[name] / players for name in counts}
    floor = sum(per_player[name] * unit[name] for name in counts)
    return {
        "group_calls_per_player": {name.removeprefix("secp256k1_"): round(c) for name, c in per_player.items()},
        "group_call_us": {name.removeprefix("secp256k1_"): round(unit[name] * 1e6, 1) for name in unit},
        "group_floor_s_per_player": round(floor, 4),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--cards", type=int, default=108, help="deck size: picks the game")
    ap.add_argument("--game", help="the game (overrides --cards)")
    ap.add_argument("--hand", type=int, default=11, help="cards dealt to each seat")
    ap.add_argument("--sra-sample", type=int, default=0, metavar="K",
                    help="extrapolate SRA from K timed pows instead of a full run")
    ap.add_argument("--repeat", type=int, default=5,
                    help="runs of the deal without proofs (the least counts)")
    ap.add_argument("--json", action="store_true", help="print one JSON line")
    ap.add_argument("--floor", action="store_true",
                    help="also count the libsecp256k1 calls per player and their cost alone")
    args = ap.parse_args(argv)

    game = args.game or game_with(args.cards)
    size = len(deck_for(game))
    plan = deal_plan(args.players, args.hand, size)

    # The least of a few runs: other processes on the machine inflate a single one.
    proofs = [simulate_deal(game, args.players, plan, verify="all", audit=False) for _ in range(args.repeat)]
    proof = min(proofs, key=lambda r: statistics.mean(r.cpu))
    # Without checking anybody's proofs (each seat still makes its own).
    bares = [simulate_deal(game, args.players, plan, verify="none", audit=False)
             for _ in range(args.repeat)]
    bare = min(bares, key=lambda r: statistics.mean(r.cpu))
    for run in (proof, bare):
        if run.aborted:
            raise SystemExit(f"the deal aborted: {run.aborted}")
    everything = {p: p % args.players for p in range(size)}
    full = simulate_deal(game, args.players, everything, verify="none", audit=False)
    sra = sra_deal(args.players, size, plan, args.sra_sample or None)

    cpu = statistics.mean(proof.cpu)
    cpu_bare = statistics.mean(bare.cpu)
    result = {
        "game": game,
        "players": args.players,
        "cards": size,
        "protocol_version": PROTOCOL_VERSION,
        "soundness_bits": SOUNDNESS_BITS,
        "cpu_s_per_player": round(cpu, 4),
        "cpu_s_per_player_max": round(max(proof.cpu), 4),
        "cpu_s_per_player_without_checking": round(cpu_bare, 4),
        "bytes_per_player": round(statistics.mean(proof.sent)),
        "bytes_per_player_max": max(proof.sent),
        "bytes_per_player_all_cards_shown": max(full.sent),
        "scalar_mult_ms": round(scalar_mult_ms(), 4),
        "sra_cpu_s_per_player_noproof": round(sra, 3),
        "runs": args.repeat,
        "sra_method": f"extrapolated from {args.sra_sample} pows" if args.sra_sample else "full run",
        "sra_over_cpu_with_proofs": round(sra / cpu, 1),
    }
    if args.floor:
        result.update(group_floor(game, args.players, plan))
        result["cpu_over_group_floor"] = round(cpu / result["group_floor_s_per_player"], 2)
    if args.json:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print(f"{k:34} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
