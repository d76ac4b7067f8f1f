"""Logging that a flood cannot turn into a flood of log lines."""

from __future__ import annotations

import logging
import time


class RateLimitedLog:
    """At most ``burst`` lines per ``interval`` seconds; what is held back is
    counted and reported with the next line that passes."""

    def __init__(self, logger: logging.Logger, burst: int = 20, interval: float = 10.0):
        self.logger, self.burst, self.interval = logger, burst, interval
        self._window_start = -float("inf")
        self._in_window = 0
        self.suppressed = 0

    def log(self, level: int, msg: str, *args) -> None:
        now = time.monotonic()
        if now - self._window_start >= self.interval:
            self._window_start, self._in_window = now, 0
        if self._in_window >= self.burst:
            self.suppressed += 1
            return
        self._in_window += 1
        if self.suppressed:
            msg += " (%d similar messages suppressed)"
            args = (*args, self.suppressed)
            self.suppressed = 0
        self.logger.log(level, msg, *args)

    def warning(self, msg: str, *args) -> None:
        self.log(logging.WARNING, msg, *args)

    def info(self, msg: str, *args) -> None:
        self.log(logging.INFO, msg, *args)
