"""Run the p2pcards command as a person would: a real process, optionally on
a pseudo-terminal (the table needs one); stderr comes back apart."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading
from dataclasses import dataclass


@dataclass
class Outcome:
    code: int
    stderr: str

    def one_clear_line(self) -> str:
        """The error, checked to be one line and no traceback; returns it."""
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        assert "Traceback" not in self.stderr, self.stderr
        assert len(lines) == 1, self.stderr
        assert self.code != 0
        return lines[0]


def environment(home) -> dict:
    env = dict(os.environ, P2PCARDS_HOME=str(home), TERM="xterm", PYTHONUNBUFFERED="1")
    env.pop("P2PCARDS_LOG", None)
    return env


def run_cli(args: list[str], home, *, tty: bool = False, stdin=subprocess.DEVNULL, timeout: float = 90) -> Outcome:
    command = [sys.executable, "-m", "p2pcards", *args]
    if not tty:
        done = subprocess.run(command, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              env=environment(home), timeout=timeout, text=True)
        return Outcome(done.returncode, done.stderr)
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=subprocess.PIPE, env=environment(home),
                                text=True)
    finally:
        os.close(slave)

    def drain() -> None:  # the screen's output must go somewhere or the app blocks
        try:
            while os.read(master, 65536):
                pass
        except OSError:
            pass

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        _, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return Outcome(proc.returncode, err)
