"""What the lobby shows people: a table's options in words, and the address
others type to join this machine's table."""

from __future__ import annotations

from p2pcards.games import IllegalAction, get_game
from p2pcards.i18n import _, ngettext, shown

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


def option_words(key: str, value, game: str | None = None) -> str:
    """One rules option in words of the player's language (``empty_stock_ends=True``
    → "with the stock empty, drawing may end the deal"). ``key`` and ``value``
    may come from another player: they are shown, never run; an option this
    program does not know, or a value it does not expect, is shown as it is
    set (``key: value``, a yes/no one ``key: on``)."""
    said = None
    if game is not None:
        try:
            said = get_game(game).describe_option(key, value)
        except IllegalAction:  # a game this program does not know
            pass
    if said is not None:
        return shown(said)
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
    import socket  # here: the game record (options_lines) needs no sockets

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
