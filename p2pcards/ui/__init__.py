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

import importlib

# Loaded when first asked for: ``replay --text`` and the audit import modules of
# this package without wanting the full-screen application (trio, prompt-toolkit).
_HOMES = {"TableApp": "app", "play_local": "app", "run_app": "app", "run_app_async": "app",
          "LocalSession": "session", "Notifier": "session", "SeatSession": "session"}

__all__ = ["LocalSession", "Notifier", "SeatSession", "TableApp", "play_local", "run_app", "run_app_async"]


def __getattr__(name: str):
    if name in _HOMES:
        return getattr(importlib.import_module(f"p2pcards.ui.{_HOMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
