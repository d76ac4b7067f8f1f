"""The terminal table: a full-screen prompt-toolkit application driven by a
seat session (``p2pcards.ui.session.SeatSession``).

    from p2pcards.ui import run_app, play_local, LocalSession

Modules: ``session`` (the SeatSession protocol, LocalSession), ``commands``
(the command line: text ↔ actions, help; no terminal), ``render``
(the table as formatted text), ``app`` (the application, trio guest mode),
``network_session`` (a seat at a network table), ``spectator``
(``p2pcards join --watch``), ``replay_viewer`` (``p2pcards replay``). The log
lines come from ``p2pcards.protocol.narration``.

Keys at the table: Tab completes the legal moves, Enter plays, Up/Down recall
earlier lines, F1 help, PgUp/PgDn scroll help and rules, Esc back to the
table, Ctrl-C leaves (asking first during a game).
"""

from p2pcards.ui.app import TableApp, play_local, run_app, run_app_async
from p2pcards.ui.session import LocalSession, Notifier, SeatSession

__all__ = ["LocalSession", "Notifier", "SeatSession", "TableApp", "play_local", "run_app", "run_app_async"]
