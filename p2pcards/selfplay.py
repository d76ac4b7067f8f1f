"""``p2pcards selfplay``: a whole match between bot peers, each in its own OS
process with its own key, over loopback TCP, exactly as people would play.

Seat 0 hosts; the others join as ``p2pcards bot``. Every process keeps its
own log; the honest peers' logs must be byte-identical, and the lowest honest
seat's becomes FILE.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from p2pcards.cheats import CHEATS

START_TIMEOUT = 30.0


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


def selfplay(game: str, players: int, seed, out: str, *, options: dict | None = None, cheat: str | None = None,
             cheater: int | None = None, strategy: str = "greedy", timeout: float = 3600.0,
             workdir: str | None = None) -> dict:
    """Play the match; write the log to ``out``; return a summary."""
    if cheat is not None and cheat not in CHEATS:
        raise SelfplayError(f"unknown cheat {cheat!r}; the cheats are {', '.join(CHEATS)}")
    options = dict(options or {})
    work = Path(workdir or tempfile.mkdtemp(prefix="p2pcards-selfplay-"))
    work.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.setdefault("PYTHONUNBUFFERED", "1")
    cheat_args = ["--cheat", cheat, "--cheater", str(cheater)] if cheat else []
    procs: list[subprocess.Popen] = []
    try:
        host = subprocess.Popen(
            _command("host", game, "--players", str(players), "--bind", "127.0.0.1", "--port", "0",
                     "--print-port", "--bot", strategy, "--name", "seat-host", "--key", str(work / "key0.pem"),
                     "--log-dir", str(work / "logs0"), "--seed", f"{seed}:0", *_option_args(options), *cheat_args),
            stdout=subprocess.PIPE, stderr=open(work / "seat0.err", "wb"), env=env, text=True)
        procs.append(host)
        port = _read_port(host, work / "seat0.err")
        for i in range(1, players):
            procs.append(subprocess.Popen(
                _command("bot", f"127.0.0.1:{port}", "--strategy", strategy, "--name", f"bot{i}",
                         "--key", str(work / f"key{i}.pem"), "--log-dir", str(work / f"logs{i}"),
                         "--seed", f"{seed}:{i}", *cheat_args),
                stdout=subprocess.PIPE, stderr=open(work / f"seat{i}.err", "wb"), env=env, text=True))
        results = []
        deadline = time.monotonic() + timeout
        for i, proc in enumerate(procs):
            try:
                stdout, _ = proc.communicate(timeout=max(1.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                raise SelfplayError(f"process {i} did not finish within {timeout:g} s") from None
            results.append(_result(stdout, proc.returncode, work / f"seat{i}.err"))
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    return _collect(results, cheat, cheater, out)


def _read_port(proc: subprocess.Popen, errfile: Path) -> int:
    line = proc.stdout.readline()
    if not line.startswith("PORT "):
        proc.wait(timeout=5)
        raise SelfplayError(f"the host did not start: {errfile.read_text(errors='replace')[-2000:]}")
    return int(line.split()[1])


def _result(stdout: str, code: int, errfile: Path) -> dict | None:
    for line in reversed(stdout.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                break
    return {"failed": code, "stderr": errfile.read_text(errors="replace")[-1500:]}


def _collect(results: list[dict], cheat, cheater, out: str) -> dict:
    by_seat = {r["seat"]: r for r in results if r and "seat" in r}
    honest = sorted(s for s in by_seat if s != cheater)
    finished = [s for s in honest if not by_seat[s]["result"].get("unfinished")]
    if not finished:
        failures = [r for r in results if r and "failed" in r]
        detail = failures[0]["stderr"] if failures else "no seat finished"
        raise SelfplayError(f"no honest seat finished the match: {detail}")
    logs = {s: Path(by_seat[s]["log"]).read_bytes() for s in finished}
    first = logs[finished[0]]
    differing = [s for s in finished if logs[s] != first]
    tmp = Path(str(out) + ".tmp")
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    tmp.write_bytes(first)
    os.replace(tmp, out)
    summary = {"out": str(out), "result": by_seat[finished[0]]["result"], "seats_finished": finished}
    if differing:
        summary["logs_differ"] = differing
    return summary


__all__ = ["selfplay", "SelfplayError"]
