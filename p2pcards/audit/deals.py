"""The final checks of a log's deals in other processes, while the walk goes on.

Each deal's final check (``mental.check_deal``: every layer recomputed from the
revealed seeds) is nearly all curve arithmetic, and no later entry needs more of
it than its verdict. When a deal looks clean without that arithmetic
(``mental.expect_deal``: every seed revealed and matching its commitment,
every message well formed, every published key the seed's), the walk goes on
with that expected verdict and the whole check runs in a worker process. Once
the walk is over, ``confirmed`` compares every whole check with what was
expected; if any differs, the caller walks the log again with every check done
in place, so the verdict is always the one the sequential audit gives.
"""

from __future__ import annotations

import os

from p2pcards import mental
from p2pcards.protocol.log import GameLog, signatures_hold, signed_parts

# A log shorter than this is walked in place: a worker's start costs more than its deals.
PARALLEL_MIN_ENTRIES = 300


def workers_for(entries: int) -> int:
    """How many worker processes are worth starting for a log of ``entries``:
    every core but the walk's own, at most 4; 0 on one core, without fork, or
    for a short log."""
    if entries < PARALLEL_MIN_ENTRIES or not hasattr(os, "fork"):
        return 0
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(0, min(4, cores - 1))


class DealChecks:
    """A ``TableMachine.deal_checker`` that has the whole checks done by ``workers`` processes."""

    def __init__(self, workers: int):
        import multiprocessing  # here: a short log, walked in place, does without it
        from concurrent.futures import ProcessPoolExecutor

        # fork: the workers start with every module this process has loaded.
        self._pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
        self._pending: list = []  # a Future per deal: its layers_match
        self._unparsed: list[bytes] = []  # encodings the walk did not parse since the last deal's check

    def __call__(self, record: mental.DealRecord, proofs_verified: bool) -> mental.DealAudit:
        expected = mental.expect_deal(record, proofs_verified)
        if expected is None:
            self._check_points()
            return mental.check_deal(record, proofs_verified)  # something to find: found here, in order
        audit, layers = expected
        unparsed, self._unparsed = self._unparsed, []
        self._pending.append(self._pool.submit(_deal_holds, layers, unparsed))
        return audit

    def points(self, blobs: list[bytes]) -> None:
        """Encodings the walk took in without parsing them (``TableMachine.point_checker``):
        checked with the deal's layers (those are mostly its recomputations), or alone."""
        self._unparsed.extend(blobs)

    def _check_points(self) -> None:
        if self._unparsed:
            unparsed, self._unparsed = self._unparsed, []
            self._pending.append(self._pool.submit(mental.points_valid, unparsed))

    def signatures_hold(self, log: GameLog):
        """A Future: whether every signature of ``log`` (read without them) verifies."""
        return self._pool.submit(signatures_hold, *signed_parts(log))

    def shuffle(self, deck_in: list[bytes], message, context: bytes) -> None:
        """A shuffle's proof, taken to hold, checked by a worker (``TableMachine.proof_checker``)."""
        self._pending.append(self._pool.submit(_shuffle_proof_holds, deck_in, message, context))

    def rekey(self, deck_in: list[bytes], deck_key: bytes, message, context: bytes) -> None:
        """A re-key's proof, taken to hold, checked by a worker."""
        self._pending.append(self._pool.submit(_rekey_proof_holds, deck_in, deck_key, message, context))

    def submit(self, fn, *args):
        """``fn(*args)`` done by a worker: its Future."""
        return self._pool.submit(fn, *args)

    def confirmed(self) -> bool:
        """Every check sent to the workers since the last call says what the
        walk took it to say: a deal's layers are their recomputations, a proof holds."""
        self._check_points()
        pending, self._pending = self._pending, []
        return all(future.result() for future in pending)

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def __deepcopy__(self, memo) -> None:
        # A copy of the table (a probe of an abort's evidence) checks its deals in place.
        return None

    def __enter__(self) -> "DealChecks":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _deal_holds(layers: list, unparsed: list[bytes]) -> bool:
    """The deal's layers are their recomputations and every encoding the walk
    did not parse is a point (most are among the layers computed: not parsed)."""
    made: set[bytes] = set()
    return mental.layers_match(layers, made) and mental.points_valid(unparsed, made)


class Unchecked:
    """What a first pass of the audit (proofs and keys not checked: the deals'
    final checks recompute them) left unchecked: every shuffle's and re-key's
    proof and every published key against its commitment, noted by the machine
    (``TableMachine.unchecked``) where the pass that checks them all would have
    checked them. If every one holds, that pass walks exactly as the first one
    did and says the same: it is not needed (``hold``)."""

    def __init__(self):
        self._proofs: list[tuple] = []
        self._keys: list[tuple[int, bytes | None]] = []

    def shuffle(self, deck_in: list[bytes], message, context: bytes) -> None:
        self._proofs.append((_shuffle_proof_holds, deck_in, message, context))

    def rekey(self, deck_in: list[bytes], deck_key: bytes, message, context: bytes) -> None:
        self._proofs.append((_rekey_proof_holds, deck_in, deck_key, message, context))

    def key(self, key: int, commitments: list[bytes] | None, position: int) -> None:
        self._keys.append((key, commitments[position] if commitments is not None else None))

    def hold(self, checks: DealChecks | None) -> bool:
        """Every proof and key noted holds, checked by the workers of ``checks`` (None: here)."""
        chunks = [self._keys[i:i + _KEYS_A_TASK] for i in range(0, len(self._keys), _KEYS_A_TASK)]
        if checks is None:
            return all(check(*args) for check, *args in self._proofs) and all(map(_keys_match, chunks))
        futures = [checks.submit(check, *args) for check, *args in self._proofs]
        futures += [checks.submit(_keys_match, chunk) for chunk in chunks]
        return all(future.result() for future in futures)

    def __deepcopy__(self, memo) -> None:
        # A copy of the table (a probe of an abort's evidence) checks every proof itself.
        return None


_KEYS_A_TASK = 512


def _keys_match(keys: list[tuple[int, bytes | None]]) -> bool:
    return all(commitment is not None and mental.check_card_key(key, commitment) for key, commitment in keys)


def _shuffle_proof_holds(deck_in: list[bytes], message, context: bytes) -> bool:
    try:
        mental.verify_shuffle(deck_in, message, context)
    except mental.MentalError:
        return False
    return True


def _rekey_proof_holds(deck_in: list[bytes], deck_key: bytes, message, context: bytes) -> bool:
    try:
        mental.verify_rekey(deck_in, deck_key, message, context)
    except mental.MentalError:
        return False
    return True
