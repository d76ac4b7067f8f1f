"""What the lobby shows people: a table's options in words, and the address
others type to join this machine's table."""

from __future__ import annotations

import socket

from p2pcards.i18n import _, ngettext

# The table's own settings (runner.TABLE_DEFAULTS), in words.
_SETTINGS = {
    "turn_timeout": lambda v: _("turn time: {seconds} s").format(seconds=v),
    # The least: for the player whose move it is, their turn time runs on too (table.md §3).
    "rejoin_timeout": lambda v: _("time to come back after a lost connection: at least {seconds} s").format(
        seconds=v),
    "deals": lambda v: _("no deal limit") if v == 0 else _deals_at_most(v),
    "pauses": lambda v: _("pauses a player may ask for: {n}").format(n=v),
    "pause_time": lambda v: _("longest pause: {seconds} s").format(seconds=v),
}


def _deals_at_most(v) -> str:
    n = v if isinstance(v, int) else 2  # a value from another player: shown, whatever it is
    return ngettext("{n} deal at most", "{n} deals at most", n).format(n=v)


def _points(v) -> int:
    return v if isinstance(v, int) else 2  # the plural's form for a value from another player, whatever it is


def _yes_no(yes: str, no: str):
    return lambda v: _(yes) if v is True else _(no) if v is False else None


# Each rules option of each game in words, as the rules texts' house rules
# section (p2pcards/rules/LANG/GAME.md) says it: a yes/no option by what it
# means either way, a number in its sentence. (game, key) first, then key.
_RULES = {
    "pairs": lambda v: (_("four players in two pairs") if v is True else
                        _("each for themselves") if v is False else None),
    ("kanasta", "target"): lambda v: ngettext("the match ends at {n} point", "the match ends at {n} points",
                                              _points(v)).format(n=v),
    ("kanaszta", "target"): lambda v: ngettext("the match ends at {n} point", "the match ends at {n} points",
                                               _points(v)).format(n=v),
    "first_meld": lambda v: _("a first combination worth at least {n}").format(n=v),
    "play_before_first_meld": lambda v: (
        _("adding to others' combinations and swapping before one's own first combination") if v is True else
        _("no adding or swapping before one's own first combination") if v is False else None),
    "swap_twos": lambda v: (_("a 2 may be swapped out like a joker") if v is True else
                            _("only jokers are swapped out") if v is False else None),
    ("kanasta", "go_out_canasta"): lambda v: (_("going out needs a kanasta of one's own") if v is True else
                                              _("going out needs no kanasta") if v is False else None),
    ("kanaszta", "go_out_canasta"): lambda v: (_("going out needs a kanaszta") if v is True else
                                               _("going out needs no kanaszta") if v is False else None),
    "one_meld_per_rank": lambda v: (_("one combination of each rank per player or pair") if v is True else
                                    _("a second combination of a rank may be laid") if v is False else None),
    "cards_score_to_layer": lambda v: (
        _("a card added to another's combination counts for whoever added it") if v is True else
        _("every card of a combination counts for its owner") if v is False else None),
    "red3_replacement": lambda v: (_("a red 3 laid apart is replaced from the stock") if v is True else
                                   _("a red 3 laid apart is not replaced") if v is False else None),
    "empty_stock_ends": lambda v: (_("with the stock empty, drawing may end the deal") if v is True else
                                   _("with the stock empty, whoever can take the pile must") if v is False
                                   else None),
    "partner_hand_counts": lambda v: (
        _("the partner of whoever went out counts their hand as minus") if v is True else
        _("the partner of whoever went out does not count their hand") if v is False else None),
    "plain_two_stops": lambda v: (_("a 2 discarded plainly stops the next player taking the pile") if v is True else
                                  _("only a black 3 or a joker stops the next player taking the pile")
                                  if v is False else None),
    "freeze_binds_own_side": lambda v: (
        _("a frozen pile binds every side") if v is True else
        _("a frozen pile binds only the opponents of the side that froze it") if v is False else None),
    ("warkocz", "target"): lambda v: ngettext("{n} point wins the match and the bank",
                                              "{n} points win the match and the bank", _points(v)).format(n=v),
    ("warkocz", "ante"): lambda v: ngettext("everybody pays {n} chip into the bank at the start",
                                            "everybody pays {n} chips into the bank at the start",
                                            _points(v)).format(n=v),
    "deal_fee": lambda v: ngettext("the dealer pays {n} chip into the bank each deal",
                                   "the dealer pays {n} chips into the bank each deal", _points(v)).format(n=v),
    "warkocz_fee": lambda v: ngettext("a warkocz earns {n} chip from every other player",
                                      "a warkocz earns {n} chips from every other player", _points(v)).format(n=v),
    "chips": lambda v: ngettext("{n} chip each to start with", "{n} chips each to start with",
                                _points(v)).format(n=v),
    "debt": lambda v: (_("a player short of chips pays all the same and goes into debt") if v is True else
                       _("a player short of chips pays what they have") if v is False else None),
    "must_play": lambda v: (_("a player holding a card of the needed rank may not pass") if v is True else
                            _("passing is always allowed") if v is False else None),
    "two_of_a_kind": lambda v: (_("two cards of a rank may be laid together too") if v is True else
                                _("never just two cards of a rank together") if v is False else None),
    "hand_size": lambda v: ngettext("{n} card dealt to each player", "{n} cards dealt to each player",
                                    _points(v)).format(n=v),
    ("bura", "ante"): lambda v: ngettext("everybody pays {n} chip into the bank each round",
                                         "everybody pays {n} chips into the bank each round",
                                         _points(v)).format(n=v),
    "rounds": lambda v: ngettext("{n} round in a match", "{n} rounds in a match", _points(v)).format(n=v),
    ("bura", "target"): lambda v: ngettext("a declaration needs {n} point", "a declaration needs {n} points",
                                           _points(v)).format(n=v),
    "bessa": lambda v: (_("bessas are played") if v is True else
                        _("no bessas") if v is False else None),
}


def option_words(key: str, value, game: str | None = None) -> str:
    """One rules option in words of the player's language (``empty_stock_ends=True``
    → "with the stock empty, drawing may end the deal"). ``key`` and ``value``
    may come from another player: they are shown, never run; an option this
    program does not know, or a value it does not expect, is shown as it is
    set (``key: value``, a yes/no one ``key: on``)."""
    words = _RULES.get((game, key)) or _RULES.get(key)
    said = words(value) if words is not None else None
    if said is not None:
        return said
    label = str(key).replace("_", " ")
    if value is True:
        # Translators: a rule option switched on ("bessa: on").
        return _("{option}: on").format(option=label)
    if value is False:
        return _("{option}: off").format(option=label)
    return f"{label}: {value}"


def options_lines(rules: dict, settings: dict, game: str | None = None) -> list[str]:
    """The rules (of ``game``, in words) and the table settings, a line each,
    in the order the game lists its options (as its rules text does)."""
    lines = []
    if rules:
        # Translators: the rules options in words, joined by "; " (a phrase may hold a comma).
        lines.append(_("Rules: {options}").format(options="; ".join(option_words(k, v, game) for k, v in rules.items())))
    if settings:
        lines.append(_("Table: {settings}").format(settings=", ".join(
            _SETTINGS[k](v) if k in _SETTINGS else option_words(k, v) for k, v in sorted(settings.items()))))
    return lines


def join_addresses(bind: str, port: int) -> list[str]:
    """``ADDR:PORT`` others on the LAN may join this machine's table at: the
    address listened on, or for all addresses (0.0.0.0) this machine's
    non-loopback IPv4 addresses (the route outwards first)."""
    if bind not in ("", "0.0.0.0", "::"):
        return [_with_port(bind, port)]
    found: list[str] = []
    try:
        # No packet is sent: connecting a UDP socket only picks the outgoing address.
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("192.0.2.1", 9))
            found.append(s.getsockname()[0])
    except OSError:
        pass
    try:
        import ifaddr

        for adapter in ifaddr.get_adapters():
            found += [ip.ip for ip in adapter.ips if isinstance(ip.ip, str)]
    except Exception:  # ifaddr is optional (the lan extra); the route above may do
        pass
    addresses = [a for a in dict.fromkeys(found) if not a.startswith(("127.", "169.254.")) and a != "0.0.0.0"]
    return [_with_port(a, port) for a in addresses] or [_with_port("127.0.0.1", port)]


def _with_port(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
