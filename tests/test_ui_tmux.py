"""End to end in a real terminal (tmux, 80x24): the host of a LAN table sees
the address others join at (with --port 0 too), and keeps seeing it in the
lobby while players sit down; a bot peer joins by exactly that address.
A whole match of ``play`` ends on its score sheet, which stays in the shell,
and leaves nothing in the temporary directory."""

import os
import re
import time
import shutil
import subprocess
import sys

import pytest

from tests.helpers import REPO, Terminal

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")


@pytest.fixture
def host(tmp_path):
    name = f"p2pcards-host-test-{os.getpid()}"
    command = (f"cd {tmp_path} && HOME={tmp_path} PYTHONPATH={REPO} {sys.executable} -m p2pcards host bura "
               f"--players 3 --port 0 --name Host; echo EXITED $?; sleep 30")
    terminal = Terminal(name, command)
    try:
        yield terminal
    finally:
        terminal.close()


def test_the_host_sees_the_address_to_join_and_keeps_it_in_the_lobby(host, tmp_path):
    join = re.compile(r"p2pcards join (\d+\.\d+\.\d+\.\d+):(\d+)")
    screen = host.wait_for(lambda s: join.search(s), "the address to join")
    address, port = join.search(screen).groups()
    assert int(port) != 0
    assert all(len(line) <= 80 for line in screen.splitlines())
    bot = subprocess.Popen(
        [sys.executable, "-m", "p2pcards", "bot", f"{address}:{port}", "--name", "Ada"],
        cwd=tmp_path, env={**os.environ, "HOME": str(tmp_path / "bot"), "PYTHONPATH": REPO},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        screen = host.wait_for(lambda s: "2 of 3 seated" in s, "the bot seated")
        assert f"p2pcards join {address}:{port}" in screen  # still there with a player seated
        assert "Ada" in screen and "bura" in screen.splitlines()[0] + screen
        assert "Traceback" not in screen
    finally:
        bot.kill()
        bot.wait()
    host.keys("quit", "Enter")
    host.wait_for(lambda s: "EXITED" in s, "the host to leave")


@pytest.fixture
def one_deal(tmp_path):
    name = f"p2pcards-play-test-{os.getpid()}"
    (tmp_path / "tmp").mkdir()
    command = (f"cd {tmp_path} && HOME={tmp_path} TMPDIR={tmp_path / 'tmp'} PYTHONPATH={REPO} {sys.executable} "
               f"-m p2pcards play bura --bots 1 --seed 5 --name You -o table.deals=1; echo EXITED $?; sleep 30")
    terminal = Terminal(name, command)
    try:
        yield terminal
    finally:
        terminal.close()


def test_a_match_ends_on_its_score_sheet_which_stays_in_the_shell(one_deal, tmp_path):
    term = one_deal
    end = time.monotonic() + 240  # a safety net for a hung game, not a timing assertion
    while time.monotonic() < end:
        screen = term.wait_for(lambda s: "your move>" in s or "score sheet" in s, "my turn or the sheet")
        if "The match is over" in screen or ("score sheet" in screen and "match over" in screen.splitlines()[0]):
            break
        if "score sheet" in screen:
            time.sleep(0.2)
            continue
        term.keys("hint", "Enter")
        term.wait_for(lambda s: re.search(r"\(Enter\s+plays\s+it\)", s) or "score sheet" in s, "the hint")
        term.keys("Enter")
        # the move is sent: the input line is empty again and the hint gone
        term.wait_for(lambda s: s.rstrip().splitlines()[-1].strip() in ("your move>", ">")
                      and "plays" not in s, "my move taken")
    screen = term.wait_for(lambda s: "Deal 1: score sheet" in s, "the deal's sheet")
    assert "Hands at the end:" in screen
    assert "reconnecting" not in screen
    # The rest of the sheet, on a small screen: the match's end and the standings, read a page at a
    # time (how far a page goes depends on how long the deal's sheet was, and on whether the log's
    # place was added before the key came).
    seen = screen
    term.keys("PageDown")
    seen += term.wait_for(lambda s: "Final standings:" in s, "the standings")
    if "The match is over" not in seen:
        term.keys("PageUp")
        seen += term.wait_for(lambda s: "The match is over" in s, "the match's end")
    term.keys("Escape")
    table = term.wait_for(lambda s: "match over" in s and "score sheet" not in s.splitlines()[2], "the table")
    assert "reconnecting" not in table
    term.keys("quit", "Enter")
    shell = term.wait_for(lambda s: "EXITED" in s, "the program to end")
    assert "EXITED 0" in shell
    assert "The match is over: " in shell and "Final standings:" in shell and "p2pcards audit " in shell
    assert list((tmp_path / "tmp").iterdir()) == []  # the bots' folder is gone


NOT_A_TABLE = {"en": "is not a p2pcards table", "pl": "to nie stół p2pcards", "hu": "nem p2pcards asztal"}


@pytest.mark.parametrize("lang", ["en", "pl", "hu"])
def test_joining_a_web_server_says_at_once_it_is_not_a_table(tmp_path, lang):
    """``p2pcards join`` at a port where a web server answers: one line says
    the address is not a p2pcards table (it said "frame of 1213486160 bytes
    exceeds the maximum", the bytes "HTTP" read as a length). The server
    answers a bad request line at its first byte, as nginx does."""
    import socketserver
    import threading

    class WebServer(socketserver.BaseRequestHandler):
        def handle(self):
            self.request.recv(1024)
            self.request.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), WebServer)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    command = (f"cd {tmp_path} && HOME={tmp_path} P2PCARDS_HOME={tmp_path / 'home'} P2PCARDS_LANG={lang} "
               f"PYTHONPATH={REPO} {sys.executable} -m p2pcards join 127.0.0.1:{port} --new --name Ala; "
               f"echo EXITED $?; sleep 30")
    terminal = Terminal(f"p2pcards-http-test-{os.getpid()}-{lang}", command)
    try:
        screen = terminal.wait_for(lambda s: "EXITED" in s, "the command's end")
    finally:
        terminal.close()
        server.shutdown()
    assert f"127.0.0.1:{port} {NOT_A_TABLE[lang]}" in screen
    assert "EXITED 0" not in screen and "1213486160" not in screen and "Traceback" not in screen


def test_join_with_no_port_dials_7531():
    """``join HOST`` takes the port every host opens by default."""
    from p2pcards.cli.subcommands import _address

    assert _address("192.168.1.20") == ("192.168.1.20", 7531)
    assert _address("kitchen.local") == ("kitchen.local", 7531)
    assert _address("[fe80::1]") == ("fe80::1", 7531) == _address("fe80::1")
    assert _address("192.168.1.20:7000") == ("192.168.1.20", 7000)
    assert _address("[::1]:7000") == ("::1", 7000)
    for bad in ("host:", "host:x", ":80", "a b", "host:70000", "[::1", "[::1]x", "host:0"):
        with pytest.raises(Exception, match="is not an address: HOST or HOST:PORT"):
            _address(bad)


@pytest.mark.parametrize("host_lang, join_lang", [("pl", "hu"), ("en", "pl")])
def test_the_players_chat_at_the_table_they_are_asked_to_accept(tmp_path, host_lang, join_lang):
    """Two terminals, two languages: at the accept question a player types
    chat (it answered "Please answer yes or no"); both screens show the line
    under the table, each in its own words."""
    heading = {"en": "Chat (chat TEXT says something to the table):", "pl": "Czat (chat TEKST mówi coś do stołu):",
               "hu": "Csevegés (chat SZÖVEG: szólj az asztalhoz):"}
    join = re.compile(r"p2pcards join (\d+\.\d+\.\d+\.\d+:\d+)")

    def command(who, lang, args):
        home = tmp_path / who
        home.mkdir()
        return (f"cd {home} && HOME={home} P2PCARDS_HOME={home} P2PCARDS_LANG={lang} PYTHONPATH={REPO} "
                f"{sys.executable} -m p2pcards {args}; echo EXITED $?; sleep 30")

    host = Terminal(f"p2pcards-chat-host-{os.getpid()}-{host_lang}",
                    command("hana", host_lang, "host bura --players 2 --bind 127.0.0.1 --port 0 --name Hana"))
    joiner = None
    try:
        where = join.search(host.wait_for(lambda s: join.search(s), "the address to join")).group(1)
        joiner = Terminal(f"p2pcards-chat-join-{os.getpid()}-{join_lang}",
                          command("jola", join_lang, f"join {where} --name Jola --new"), columns=120, rows=40)
        for term in (host, joiner):
            term.wait_for(lambda s: "(" + {"en": "yes/no", "pl": "tak/nie", "hu": "igen/nem"}[
                host_lang if term is host else join_lang] + ")>" in s, "the question")
        joiner.keys("chat dzień dobry, gramy?", "Enter")
        host.keys("chat jasne", "Enter")
        for term, lang in ((host, host_lang), (joiner, join_lang)):
            screen = term.wait_for(lambda s: "Jola: dzień dobry, gramy?" in s and "Hana: jasne" in s, "the chat")
            assert heading[lang] in screen and "Traceback" not in screen
            assert all(len(line) <= (80 if term is host else 120) for line in screen.splitlines())
        joiner.keys("no", "Enter")
        joiner.wait_for(lambda s: "EXITED" in s, "the joiner to leave")
    finally:
        host.close()
        if joiner is not None:
            joiner.close()
