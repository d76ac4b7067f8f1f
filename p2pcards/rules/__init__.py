"""The rules texts shipped with the package, and their rendering for a terminal.

Three kinds of text live under ``p2pcards/rules/``:

- ``en/GAME.md``, ``pl/GAME.md``, ``hu/GAME.md``: the rules written for players,
  in a small subset of Markdown (``#``/``##`` headings, paragraphs, ``- `` items
  with indented continuation lines, ``**bold**`` and ```code``` spans);
- ``original/GAME.LANG.txt``: the original Polish or Hungarian text each game
  comes from, verbatim;
- ``RULES.md``: the normative reading for the engines' authors (``rules_for``).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from importlib import resources

from p2pcards import i18n
from p2pcards.games import GAME_IDS, IllegalAction

LANGUAGES = i18n.LANGUAGES
# The language each game's original text is written in.
ORIGINAL_LANGUAGE = {"kanasta": "pl", "kanaszta": "hu", "warkocz": "pl", "bura": "pl"}
# Said on top of the English text when a game has none in the asked language.
FALLBACK_NOTE = {
    "pl": "Tych zasad nie ma jeszcze po polsku; poniżej wersja angielska.",
    "hu": "Ezek a szabályok még nem olvashatók magyarul; alább az angol változat.",
}
# Lines wider than this are tiring to read, whatever the terminal's width.
MAX_WIDTH = 100
MIN_WIDTH = 20
SUIT_LETTERS = {"\u2660": "S", "\u2665": "H", "\u2666": "D", "\u2663": "C"}


def _check_game(game_id: str) -> None:
    if game_id not in GAME_IDS:
        raise IllegalAction(f"unknown game {game_id!r}; the games are {', '.join(GAME_IDS)}")


def _package_text(path: str) -> str:
    return resources.files("p2pcards").joinpath(f"rules/{path}").read_text(encoding="utf-8")


# ----- the normative spec (for the engines' authors) -------------------------------


def full_rules() -> str:
    return _package_text("RULES.md")


def rules_for(game_id: str) -> str:
    """The section of RULES.md for one game, plus the card-code preamble."""
    _check_game(game_id)
    text = full_rules()
    # Sections are "## N. `id` — title"; the preamble (card codes) precedes the first.
    parts = re.split(r"(?m)^(?=## )", text)
    preamble = parts[0].split("---")[0].strip()
    for part in parts[1:]:
        if part.startswith("## ") and f"`{game_id}`" in part.splitlines()[0]:
            return part.strip().rstrip("-").strip() + "\n\n" + preamble + "\n"
    raise IllegalAction(f"no rules text found for {game_id}")


# ----- the players' texts ----------------------------------------------------------


def choose_language(flag: str | None = None, environ=None) -> str:
    """The language of the rules text: the player's language (see ``p2pcards.i18n``)."""
    try:
        return i18n.choose_language(flag, environ)
    except i18n.UnknownLanguage as e:
        raise IllegalAction(str(e)) from None


def has_text(game_id: str, lang: str) -> bool:
    return resources.files("p2pcards").joinpath(f"rules/{lang}/{game_id}.md").is_file()


def player_rules(game_id: str, lang: str = "en") -> str:
    """The players' rules of ``game_id`` in ``lang`` (Markdown subset); the
    English text with a note in ``lang`` when that language has none."""
    _check_game(game_id)
    if lang not in LANGUAGES:
        raise IllegalAction(f"unknown language {lang!r}; the languages are {', '.join(LANGUAGES)}")
    if has_text(game_id, lang):
        return _package_text(f"{lang}/{game_id}.md")
    text = _package_text(f"en/{game_id}.md")
    if lang in FALLBACK_NOTE:
        text = FALLBACK_NOTE[lang] + "\n\n" + text
    return text


def original_text(game_id: str) -> str:
    """The original text the game's rules come from, verbatim."""
    _check_game(game_id)
    return _package_text(f"original/{game_id}.{ORIGINAL_LANGUAGE[game_id]}.txt")


# ----- rendering -------------------------------------------------------------------

# Zero-width markers standing for styles while the text is wrapped.
_BOLD_ON, _BOLD_OFF = "\x01", "\x02"
_NBSP = "\u00a0"
_ANSI = {_BOLD_ON: "\x1b[1m", _BOLD_OFF: "\x1b[22m"}


def _inline(text: str) -> str:
    """``**bold**`` into markers; ```code``` kept whole (never broken at its
    spaces) and shown bold like the other words a player types."""
    text = re.sub(r"`([^`]+)`", lambda m: _BOLD_ON + m.group(1).replace(" ", _NBSP) + _BOLD_OFF, text)
    return re.sub(r"\*\*(.+?)\*\*", lambda m: _BOLD_ON + m.group(1) + _BOLD_OFF, text)


def _visible(word: str) -> int:
    return len(word) - word.count(_BOLD_ON) - word.count(_BOLD_OFF)


def _wrap(text: str, width: int, first: str = "", rest: str = "") -> list[str]:
    """Greedy word wrap by visible width; a style open at a line's end is
    closed there and reopened on the next line."""
    words = []
    for word in text.split():
        while _visible(word) > width - len(rest) and width - len(rest) > 0:
            # a word longer than a line (a long address): cut it, markers dropped
            plain = word.replace(_BOLD_ON, "").replace(_BOLD_OFF, "")
            cut = width - len(rest)
            words.append(plain[:cut])
            word = plain[cut:]
        if word:
            words.append(word)
    lines: list[str] = []
    line, used, bold = first, len(first), False
    started = False
    for word in words:
        if started and used + 1 + _visible(word) > width:
            lines.append(line + (_BOLD_OFF if bold else ""))
            line, used, started = rest + (_BOLD_ON if bold else ""), len(rest), False
        if started:
            line += " "
            used += 1
        line += word
        used += _visible(word)
        started = True
        for ch in word:
            if ch == _BOLD_ON:
                bold = True
            elif ch == _BOLD_OFF:
                bold = False
    if started or not lines:
        lines.append(line)
    return lines


_ITEM = re.compile(r"(- |\d+\. )")


def _blocks(markdown: str):
    """(kind, text, level) for each block: heading (level: its number of
    ``#``), item (level: (depth, its mark ``- `` or ``1. ``)), paragraph."""
    kind, level, buf = None, 0, []

    def flush():
        if kind:
            yield kind, " ".join(buf), level

    for raw in markdown.splitlines():
        line = raw.rstrip()
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if not stripped:
            yield from flush()
            kind, buf = None, []
        elif stripped.startswith("#"):
            yield from flush()
            marks = len(stripped) - len(stripped.lstrip("#"))
            yield "heading", stripped[marks:].strip(), marks
            kind, buf = None, []
        elif _ITEM.match(stripped):
            yield from flush()
            mark = _ITEM.match(stripped).group(0)
            kind, level, buf = "item", (indent // 2, mark), [stripped[len(mark):]]
        elif kind:
            buf.append(stripped)
        else:
            kind, level, buf = "paragraph", 0, [stripped]
    yield from flush()


def render(markdown: str, width: int = 80, styled: bool = False, ascii: bool = False) -> str:
    """The Markdown subset as terminal text ``width`` columns wide at most:
    bold headings and words with ``styled`` (ANSI escapes), else plain with
    headings underlined; suit symbols as letters with ``ascii``."""
    width = max(MIN_WIDTH, min(width, MAX_WIDTH))
    out: list[str] = []
    for kind, text, level in _blocks(markdown):
        text = _inline(text)
        if kind == "heading":
            if out and out[-1] != "":
                out.append("")
            title = _wrap(text, width)
            if styled:
                out += [_BOLD_ON + line + _BOLD_OFF for line in title]
            else:
                out += title
            if level <= 2 and not styled:
                out.append(("=" if level == 1 else "-") * max(_visible(line) for line in title))
            out.append("")
        elif kind == "item":
            depth, mark = level
            pad = "  " * depth
            out += _wrap(text, width, first=pad + mark, rest=pad + " " * len(mark))
        else:
            if out and out[-1] != "":
                out.append("")
            out += _wrap(text, width)
            out.append("")
    text = "\n".join(out).strip("\n") + "\n"
    text = text.replace(_NBSP, " ")
    if styled:
        text = text.replace(_BOLD_ON, _ANSI[_BOLD_ON]).replace(_BOLD_OFF, _ANSI[_BOLD_OFF])
    else:
        text = text.replace(_BOLD_ON, "").replace(_BOLD_OFF, "")
    if ascii:
        for glyph, letter in SUIT_LETTERS.items():
            text = text.replace(glyph, letter)
    return text


def reflow(text: str, width: int) -> str:
    """A plain text (an original) wrapped to ``width``, its lines kept."""
    width = max(MIN_WIDTH, min(width, MAX_WIDTH))
    out = []
    for line in text.splitlines():
        out += _wrap(line, width) if line.strip() else [""]
    return "\n".join(out).rstrip("\n") + "\n"


def table_rules(game_id: str, width: int, lang: str | None = None, ascii: bool = False) -> str:
    """The players' text as the table's pager shows it: plain, ``width`` wide."""
    return render(player_rules(game_id, lang or choose_language()), width, styled=False, ascii=ascii)


# ----- output ----------------------------------------------------------------------


def _encodable(text: str, stream) -> str:
    """Suit symbols as letters, other unknown characters as ``?``, when the
    output's encoding can't show them (a C locale)."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
        return text
    except (UnicodeEncodeError, LookupError):
        for glyph, letter in SUIT_LETTERS.items():
            text = text.replace(glyph, letter)
        return text.encode(encoding, errors="replace").decode(encoding, errors="replace")


def _pager_command(environ) -> list[str] | None:
    pager = environ.get("PAGER")
    if pager is not None:
        return shlex.split(pager) or None  # PAGER="" means: don't page
    return ["less", "-R"] if shutil.which("less") else None


def show(text: str, stream=None, environ=None) -> None:
    """Print ``text``; through the pager when ``stream`` is a terminal and
    the text is longer than the screen."""
    stream = sys.stdout if stream is None else stream
    environ = os.environ if environ is None else environ
    text = _encodable(text, stream)
    if stream.isatty() and text.count("\n") >= shutil.get_terminal_size().lines:
        command = _pager_command(environ)
        if command:
            env = dict(environ)
            env.setdefault("LESS", "R")  # let less show the bold headings
            try:
                stream.flush()
                subprocess.run(command, input=text.encode(getattr(stream, "encoding", None) or "utf-8",
                                                          errors="replace"), env=env, check=False)
                return
            except OSError:
                pass  # no such pager: print it plainly
            except KeyboardInterrupt:
                return
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:  # `p2pcards rules kanasta | head`: the reader has enough
        try:  # and Python's own flush at exit must not fail again on the closed pipe
            os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
        except (OSError, ValueError, AttributeError):
            pass


def terminal_width() -> int:
    """The terminal's width (``COLUMNS`` first, as shutil reads it)."""
    return shutil.get_terminal_size().columns


def styled_output(stream, environ=None) -> bool:
    environ = os.environ if environ is None else environ
    return stream.isatty() and "NO_COLOR" not in environ and environ.get("TERM") != "dumb"
