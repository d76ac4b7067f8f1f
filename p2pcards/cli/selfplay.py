"""``p2pcards selfplay``: a whole match between bot peers, each in its own OS
process with its own key, over loopback TCP, exactly as people would play.

Seat 0 hosts; the others join as ``p2pcards bot``. Every process keeps its
own log; the honest peers' logs must be byte-identical, and the lowest honest
seat's becomes FILE (where the table stopped without a verdict and no honest
seat finished, the lowest honest seat's unfinished log: its audit says where
the table stopped).

Fault injection: ``crash=(seat, entry)`` kills that seat's process abruptly
(SIGKILL) when its log reaches the entry, then starts it again with
``p2pcards resume``; ``drop=(seat, entry)`` cuts its connections for a few
seconds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from p2pcards.files import write_atomically
from p2pcards.i18n import _
from p2pcards.testing import CHEATS


class SelfplayError(Exception):
    pass


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "p2pcards", *args]


def _option_args(options: dict) -> list[str]:
    out = []
    for key, value in options.items():
        text = ("true" if value else "false") if isinstance(value, bool) else str(value)
        out += ["-o", f"{key}={text}"]
    return out


def _child_env() -> dict:
    env = dict(os.environ)
    env.setdefault("PYTHONUNBUFFERED", "1")
    # The peers end if selfplay is killed, instead of waiting for players forever.
    env["P2PCARDS_PARENT"] = str(os.getpid())
    return env


class _Process:
    """One peer's process; its stdout read by a thread (PORT, STATE, the result)."""

    def __init__(self, index: int, command: list[str], work: Path, env: dict):
        self.index = index
        self.lines: list[str] = []
        self.port_seen = threading.Event()
        err = open(work / f"seat{index}.err", "ab")
        self.proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL,
                                     env=env, text=True)
        err.close()
        self.errfile = work / f"seat{index}.err"
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line.strip())
            if line.startswith("PORT "):
                self.port_seen.set()
        self.port_seen.set()

    def value(self, prefix: str) -> str | None:
        for line in self.lines:
            if line.startswith(prefix):
                return line[len(prefix):].strip()
        return None

    def result(self) -> dict:
        self.reader.join(timeout=5)
        for line in reversed(self.lines):
            if line.startswith("{"):
                try:
                    return json.loads(line)
                except ValueError:
                    break
        return {"failed": self.proc.returncode, "stderr": self.errfile.read_text(errors="replace")[-1500:]}


def selfplay(game: str, players: int, seed, out: str, *, options: dict | None = None, cheat: str | None = None,
             cheater: int | None = None, strategy: str = "greedy", seat_strategies: dict | None = None,
             think: float | None = None, timeout: float = 3600.0,
             workdir: str | None = None, crash: tuple[int, int] | None = None,
             drop: tuple[int, int] | None = None, drop_seconds: float = 3.0) -> dict:
    """Play the match; write the log to ``out``; return a summary."""
    if cheat is not None and cheat not in CHEATS:
        raise SelfplayError(_("unknown cheat {name}; the cheats are {cheats}").format(
            name=repr(cheat), cheats=", ".join(CHEATS)))
    for name, fault in (("crash", crash), ("drop", drop)):
        if fault is not None and not (0 <= fault[0] < players and fault[1] >= 1):
            raise SelfplayError(_("--{option} takes SEAT:ENTRY with a seat 0..{last} and an entry ≥ 1").format(
                option=name, last=players - 1))
    options = dict(options or {})
    work = Path(workdir or tempfile.mkdtemp(prefix="p2pcards-selfplay-"))
    work.mkdir(parents=True, exist_ok=True)
    cheat_args = ["--cheat", cheat, "--cheater", str(cheater)] if cheat else []
    # Each peer learns its seat only at the table: every one is told the whole plan.
    bot_args = [arg for seat, name in sorted((seat_strategies or {}).items())
                for arg in ("--seat-strategy", f"{seat}={name}")]
    if think is not None:
        bot_args += ["--think", str(think)]

    def env_for(index: int) -> dict:
        # Seats go in join order, which the processes cannot be sure of: each
        # is told the faulty seat and acts only if it is that seat.
        env = _child_env()
        if crash is not None:
            env["P2PCARDS_CRASH"] = f"{crash[0]}:{crash[1]}"
        if drop is not None:
            env["P2PCARDS_DROP"] = f"{drop[0]}:{drop[1]}:{drop_seconds:g}"
        return env

    procs: list[_Process] = []
    deadline = time.monotonic() + timeout
    try:
        procs.append(_Process(0, _command(
            "host", game, "--players", str(players), "--bind", "127.0.0.1", "--port", "0", "--print-port",
            "--bot", strategy, "--name", "seat-host", "--key", str(work / "key0.pem"),
            "--log-dir", str(work / "logs0"), "--seed", f"{seed}:0", *_option_args(options), *cheat_args, *bot_args),
            work, env_for(0)))
        procs[0].port_seen.wait(timeout=60)
        port = procs[0].value("PORT ")
        if port is None:
            procs[0].proc.wait(timeout=10)
            raise SelfplayError(_("the host did not start: {stderr}").format(
                stderr=procs[0].errfile.read_text(errors="replace")[-2000:]))
        for i in range(1, players):
            procs.append(_Process(i, _command(
                "bot", f"127.0.0.1:{port}", "--strategy", strategy, "--name", f"bot{i}", "--print-port",
                "--key", str(work / f"key{i}.pem"), "--log-dir", str(work / f"logs{i}"),
                "--seed", f"{seed}:{i}", *cheat_args, *bot_args), work, env_for(i)))
            procs[-1].port_seen.wait(timeout=60)
            time.sleep(0.1)  # let it take its seat before the next one joins
        results = _wait_all(procs, work, deadline, restart=crash is not None)
    finally:
        for p in procs:
            if p.proc.poll() is None:
                p.proc.kill()
                p.proc.wait()
    return _collect(results, cheater, out)


def _wait_all(procs: list[_Process], work: Path, deadline: float, restart: bool) -> list[dict]:
    """Wait for every process; one killed by the crash injection comes back
    at once with ``p2pcards resume`` (the others are waiting for it)."""
    restarted: set[int] = set()
    while any(p.proc.poll() is None for p in procs):
        if time.monotonic() > deadline:
            raise SelfplayError(_("the match did not finish in time"))
        for i, proc in enumerate(procs):
            code = proc.proc.poll()
            if code is not None and code not in (0, -9):
                # A peer that failed leaves the others waiting for it: say why, now.
                raise SelfplayError(_("peer process {index} failed (exit {code}): {stderr}").format(
                    index=i, code=code, stderr=proc.errfile.read_text(errors="replace")[-1500:]))
            if restart and i not in restarted and proc.proc.poll() == -9:
                proc.reader.join(timeout=5)
                state = proc.value("STATE ")
                if state is None:
                    raise SelfplayError(_("process {index} crashed before it had a state file").format(index=i))
                env = _child_env()
                env.pop("P2PCARDS_CRASH", None)
                procs[i] = _Process(i, _command("resume", state), work, env)
                restarted.add(i)
        time.sleep(0.05)
    return [p.result() for p in procs]


def _collect(results: list[dict], cheater, out: str) -> dict:
    by_seat = {r["seat"]: r for r in results if r and "seat" in r}
    honest = sorted(s for s in by_seat if s != cheater)
    finished = [s for s in honest if not by_seat[s]["result"].get("unfinished")]
    # A table stopped without a verdict (a silence too few seats could attest)
    # leaves every honest seat an unfinished log: the lowest one's is kept, for
    # the audit to say where the table stopped and whose entry it waited for.
    kept = finished or [s for s in honest if by_seat[s].get("log") and Path(by_seat[s]["log"]).is_file()]
    if not kept:
        failures = [r for r in results if r and "failed" in r]
        detail = failures[0]["stderr"] if failures else _("no seat finished")
        raise SelfplayError(_("no honest seat finished the match: {reason}").format(reason=detail))
    logs = {s: Path(by_seat[s]["log"]).read_bytes() for s in kept}
    first = logs[kept[0]]
    differing = [s for s in kept if logs[s] != first]
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    write_atomically(out, first)
    summary = {"out": str(out), "result": by_seat[kept[0]]["result"], "seats_finished": finished}
    if not finished:
        summary["seats_unfinished"] = kept
    if differing:
        summary["logs_differ"] = differing
    return summary


__all__ = ["selfplay", "SelfplayError"]
