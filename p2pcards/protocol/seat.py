"""One seat's secrets and knowledge, and the entries it writes.

A ``Seat`` sits beside the shared ``TableMachine``: it keeps this seat's deal
seeds and the cards only it has been shown, and turns what is due from it
(``machine.expect()``) into the payload of its next log entry. No I/O: the
table driver signs, sends and logs what it returns.
"""

from __future__ import annotations

from p2pcards import mental
from p2pcards.i18n import N_
from p2pcards.protocol import dealing
from p2pcards.games import IllegalAction, NeedReveal
from p2pcards.protocol.knowledge import public_form, seat_state, shown_by
from p2pcards.protocol.machine import ACTION, KEYS, REKEY, REVEAL, SHUFFLE, Expect, TableMachine, Violation


class Seat:
    def __init__(self, seat: int, seeds: dict[int, bytes] | None = None):
        self.seat = seat
        # deal index -> this seat's secret seed for that deal (kept for resume)
        self.seeds: dict[int, bytes] = dict(seeds or {})
        self.known: dict[int, str] = {}  # position -> code this seat has been shown (current deal)
        self._known_deal = -1
        self.problem: Violation | None = None  # something only this seat saw: abort at its next entry

    # ----- secrets
    def secrets(self, deal_index: int) -> mental.DealSecrets:
        if deal_index not in self.seeds:
            self.seeds[deal_index] = mental.DealSecrets.fresh().seed
        return mental.DealSecrets(self.seeds[deal_index])

    # ----- knowledge
    def refresh(self, machine: TableMachine) -> None:
        """Open every card newly shown to this seat (call after each entry)."""
        deal = machine.deal
        if self._known_deal != deal.index:
            self.known, self._known_deal = {}, deal.index
        if len(deal.decks) < 2 * machine.players:
            return
        mine = self.secrets(deal.index)
        for position, published in deal.keys.items():
            if position in self.known or position in machine.public_codes:
                continue
            if not machine.book.knows(self.seat, position):
                continue
            keys = dict(published)
            keys[self.seat] = mine.card_key(position)
            try:
                self.known[position] = dealing.open_value(machine.game.id, machine.final_deck[position], list(keys.values()))
            except dealing.NoCard:
                if self.problem is None:
                    self.problem = Violation(None, "no-card", N_(
                        "position {position}, shown to seat {seat}, opens to no card", position=position, seat=self.seat))

    def state(self, machine: TableMachine):
        """This seat's own deal state: the public one plus what it has seen."""
        if machine.state is None:
            return None
        self.refresh(machine)
        return seat_state(machine.state, self.known)

    def view(self, machine: TableMachine) -> dict | None:
        return self.view_at(machine, machine.deal.index, machine.state)

    def view_at(self, machine: TableMachine, deal: int, state) -> dict | None:
        """This seat's view of ``state``, a public state of deal ``deal`` as
        it stood at some entry of the log, with the cards it has seen by now
        (every card, once that deal's final reveal has shown them to all);
        None for a deal over without its final reveal."""
        if state is None:
            return None
        if deal == machine.deal.index:
            self.refresh(machine)
            # A card shown to everybody since is not in ``known`` (it never
            # needed opening), but that past state may still hold its token.
            cards = {**machine.public_codes, **self.known}
        else:
            done = next((d for d in machine.deals if d.index == deal), None)
            if done is None or done.codes is None:
                return None
            cards = dict(enumerate(done.codes))
        return machine.game.view(seat_state(state, cards), self.seat)

    def legal_actions(self, machine: TableMachine) -> list[dict]:
        want = machine.expect() if not machine.finished else None
        if want is None or want.kind != ACTION or want.author != self.seat:
            return []
        return machine.game.legal_actions(self.state(machine))

    # ----- pipelining
    def next_step(self, machine: TableMachine, entry) -> tuple[str, list[bytes], bytes] | None:
        """(kind, input deck, proof context) of this seat's shuffle or re-key
        right after ``entry`` (not yet checked), if that is what comes next."""
        nxt = _next_step(machine, entry, self.seat)
        if nxt is None:
            return None
        kind, deck = nxt
        return kind, deck, machine.proof_context(self.seat, kind, entry.hash)

    @staticmethod
    def step_body(kind: str, secrets: mental.DealSecrets, deck_in: list[bytes], ctx: bytes) -> dict:
        """The body of a seat's shuffle or re-key on ``deck_in`` (no "deal" yet)."""
        if kind == SHUFFLE:
            return dealing.shuffle_payload(secrets, deck_in, ctx)
        return dealing.rekey_payload(secrets, deck_in, ctx)

    # ----- what this seat writes
    def due(self, machine: TableMachine) -> Expect | None:
        """What this seat must write now, or None."""
        if machine.finished:
            return None
        want = machine.expect()
        return want if want.author == self.seat else None

    def payload(self, machine: TableMachine, want: Expect, action: dict | None = None) -> dict:
        """The payload of this seat's next entry of kind ``want.kind``.
        For an action, ``action`` is the move as this seat's engine sees it;
        IllegalAction if the engine refuses it (nothing is written then)."""
        deal = machine.deal
        secrets = self.secrets(deal.index)
        if want.kind in (SHUFFLE, REKEY):
            ctx = machine.proof_context(self.seat, want.kind, machine.head_hash)
            body = self.step_body(want.kind, secrets, machine.deck_in(), ctx)
        elif want.kind == KEYS:
            body = {"keys": dealing.key_list(secrets, want.positions)}
        elif want.kind == REVEAL:
            body = dealing.reveal_payload(secrets)
        elif want.kind == ACTION:
            if action is None:
                raise ValueError("an action entry needs the action")
            body = self.action_payload(machine, action, check=True)
        else:
            raise ValueError(f"a seat does not write {want.kind} entries")
        body["deal"] = deal.index
        return body

    def action_payload(self, machine: TableMachine, action: dict, check: bool = True) -> dict:
        """An action as it goes into the log: public form, positions, and this
        seat's keys of the cards it shows."""
        mine = self.state(machine)
        if check:
            try:
                machine.game.apply(mine, action)  # raises IllegalAction with the engine's reason
            except NeedReveal:
                pass  # legal as far as this seat can see; the table shows the cards first
        public, positions = public_form(machine.game, machine.state, action, self.seat, self.known)
        shown = shown_by(public, positions)
        secrets = self.secrets(machine.deal.index)
        return {"action": public, "positions": positions, "keys": dealing.key_list(secrets, shown)}


def _next_step(machine: TableMachine, entry, seat: int) -> tuple[str, list[bytes]] | None:
    """(kind, input deck) of ``seat``'s step right after ``entry``, if
    ``entry`` is the shuffle or re-key just before it; None otherwise."""
    if machine.finished or machine.aborted or machine.pending_problem is not None:
        return None
    want = machine.expect()
    if want.kind not in (SHUFFLE, REKEY) or want.author != entry.author or want.kind != entry.kind:
        return None
    payload = entry.payload if isinstance(entry.payload, dict) else {}
    if payload.get("deal") != machine.deal.index:
        return None
    done = len(machine.deal.decks) + 1  # shuffles and re-keys after this entry
    n = machine.players
    if done < n:
        kind, author = SHUFFLE, done
    elif done < 2 * n:
        kind, author = REKEY, done - n
    else:
        return None
    if author != seat:
        return None
    msg = payload.get(entry.kind)
    try:
        deck = mental.split_points(msg.get("deck") if isinstance(msg, dict) else None, machine.deal_size)
    except mental.MentalError:
        return None
    return kind, deck


__all__ = ["Seat", "IllegalAction"]
