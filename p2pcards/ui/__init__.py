"""The terminal table: a full-screen prompt-toolkit application driven by a
seat session (``p2pcards.ui.session.SeatSession``).

    from p2pcards.ui import run_app, play_local, LocalSession
"""

from p2pcards.ui.app import TableApp, play_local, run_app, run_app_async
from p2pcards.ui.session import LocalSession, Notifier, SeatSession

__all__ = ["LocalSession", "Notifier", "SeatSession", "TableApp", "play_local", "run_app", "run_app_async"]
