"""What a check finds wrong with an entry, and whom it blames: raised by the
table machine and the dealing checks alike."""

from __future__ import annotations


class Violation(Exception):
    """An entry breaks the rules or the protocol. ``seat`` is who is to blame
    (None when nobody can tell yet), ``kind`` a short name, ``detail`` for people."""

    def __init__(self, seat: int | None, kind: str, detail: str):
        super().__init__(f"{kind}: {detail}" + (f" (seat {seat})" if seat is not None else ""))
        self.seat = seat
        self.kind = kind
        self.detail = detail

    def __reduce__(self):
        return (Violation, (self.seat, self.kind, self.detail))

    def as_dict(self, entry: int | None = None) -> dict:
        return {"seat": self.seat, "entry": entry, "kind": self.kind, "detail": self.detail}
