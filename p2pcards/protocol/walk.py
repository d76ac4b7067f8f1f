"""The one walk through a log: every reader of a log (the seat driver, the
audit, the replay, the spectator) takes entries in through a ``LogWalk``.

Two checks, each once per entry: the ``GameLog`` checks where an entry stands
(sequence, hash chain) and its signatures, the ``TableMachine`` what it says
(turns, proofs, keys, moves). An entry is in the log only once the machine
took it in. A refused entry (``Violation``) changes nothing: the walk stops
before it, and ``blamed`` names the seat that answers for it. What follows a
refusal is the reader's: a peer aborts, the audit reports, a spectator stops.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from p2pcards.protocol.log import Entry, GameLog
from p2pcards.protocol.machine import TableMachine, new_machine
from p2pcards.protocol.violation import Violation


@dataclasses.dataclass
class Step:
    """One entry walked: the deal and public deal state before it, and the
    Violation it was refused for (None: taken in)."""

    entry: Entry
    deal_before: int
    state_before: Any
    refused: Violation | None = None


def blamed(violation: Violation, entry: Entry) -> Violation:
    """The refusal of ``entry`` with its culprit named: the seat the check
    blames, else the entry's author (nobody, for the table and end entries,
    which every player signs)."""
    if violation.seat is not None or entry.author < 0:
        return violation
    return Violation(entry.author, violation.kind, violation.detail)


class LogWalk:
    """A ``GameLog`` and the ``TableMachine`` fed from it.

    ``log`` may already hold entries (read from a file, verified then): the
    machine takes them in with ``follow``. New entries come through ``take``.
    """

    def __init__(self, log: GameLog, verify_proofs: bool = True):
        self.log = log
        self.machine: TableMachine = new_machine(log.genesis, verify_proofs=verify_proofs)

    @classmethod
    def start(cls, genesis: Entry) -> "LogWalk":
        """A walk from the table entry alone (its signatures checked)."""
        log = GameLog()
        log.append(genesis)
        return cls(log)

    def take(self, entry: Entry, checked: Callable[[Entry], None] | None = None) -> Step:
        """Check ``entry`` as the next one and take it in; ``checked(entry)``
        runs once its place and signatures are checked, before the machine
        looks at it. Returns its step. LogError or Violation: nothing changes."""
        if self.machine.seq != len(self.log):
            raise RuntimeError("the machine has not taken in every entry of the log yet (follow first)")
        self.log.check(entry)
        if checked is not None:
            checked(entry)
        step = Step(entry, self.machine.deal.index, self.machine.state)
        self.machine.accept(entry, self.table_before)  # leaves the machine as it was on Violation
        self.log.append(entry)  # its signatures were checked above: not again
        return step

    def follow(self, upto: int | None = None,
               observe: Callable[[Step, TableMachine], None] | None = None) -> Step | None:
        """Feed the machine the entries the log holds and it has not taken in
        yet (up to entry ``upto``, excluded), ``observe(step, machine)`` after
        each, refused or not. Returns the refused step, where the walk
        stopped, or None."""
        machine = self.machine
        end = len(self.log) if upto is None else min(upto, len(self.log))
        while machine.seq < end:
            entry = self.log[machine.seq]
            step = Step(entry, machine.deal.index, machine.state)
            try:
                machine.accept(entry, self.table_before)
            except Violation as v:
                step.refused = v
            if observe is not None:
                observe(step, machine)
            if step.refused is not None:
                return step
        return None

    def table_before(self, seq: int) -> TableMachine:
        """A fresh table as it stood before entry ``seq`` of this log: what
        judging an abort's evidence for an earlier place needs (``evidence``)."""
        return machine_at(self.log, seq)


def machine_at(log: GameLog, seq: int) -> TableMachine:
    """The table as it stood before entry ``seq`` of a verified log (the
    dealing proofs of the entries before it deferred, as in the audit)."""
    walk = LogWalk(log, verify_proofs=False)
    refused = walk.follow(upto=seq)
    if refused is not None:
        raise blamed(refused.refused, refused.entry)
    walk.machine.verify_proofs = True
    return walk.machine


__all__ = ["LogWalk", "Step", "blamed", "machine_at"]
