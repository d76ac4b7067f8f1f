"""The command line of the table: text → action, action → text. Pure: no
terminal, no session, so every game's commands are unit-testable.

A move is typed as a verb and its arguments: ``m KH KS KD`` (meld), ``d 7C``
(discard), ``a 2 KH`` (add KH to meld 2), ``pl 9C as 8`` (warkocz), ``b QS``
(beat). Cards are case-insensitive and may use suit symbols (``k♥``) and
``T`` for ten; the Polish and Hungarian rank letters (``W``/``B`` jack, ``D``
queen, ``Á`` ace) are read in every language, the suit always last (``DH``
the queen of hearts). The parser looks the typed move up among the legal actions, so
what goes to the engine is exactly the engine's own action (with any extra
fields it needs); a move that is not legal is still built and sent, so the
player gets the engine's own explanation of why not.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter

from p2pcards.cards import JOKER, LOCAL_RANK_LETTERS, RANKS, SUITS, SUIT_SYMBOLS, is_code, rank_label
from p2pcards.games import get_game
from p2pcards.games.base import Verb
from p2pcards import i18n
from p2pcards.i18n import N_, _
from p2pcards.protocol.narration import describe  # noqa: F401  (re-exported: the log lines the screen shows)

# ----- cards -------------------------------------------------------------------

_SYMBOL_TO_SUIT = {sym: s for s, sym in SUIT_SYMBOLS.items()} | {"\u2661": "H", "\u2662": "D", "\u2664": "S", "\u2667": "C"}
_RANK_WORDS = {"T": "10", "1": "A", "JO": JOKER, "JOKER": JOKER, "*": JOKER}
CARD_HELP = N_("write a card as rank and suit: KH, 10S, TD, 7\u2666, JK for a joker")
# Local rank letters are read in every language: none is an English rank, and
# the suit is always the last letter, so "DD" is the queen of diamonds.
RANK_LETTERS_HELP = N_("Polish W D K A and Hungarian B D K \u00c1 work as ranks too: "
                       "DH is the queen of hearts, \u00c1S the ace of spades (the suit comes last)")


class CommandError(ValueError):
    """Input that is not a command or not a well-formed move; the message says why."""


def parse_card(token: str) -> str:
    """``kh`` / ``K♥`` / ``td`` / ``joker`` → ``KH`` / ``KH`` / ``10D`` / ``JK``."""
    t = token.strip().upper()
    for sym, s in _SYMBOL_TO_SUIT.items():
        t = t.replace(sym, s)
    if t == JOKER or (t in _RANK_WORDS and _RANK_WORDS[t] == JOKER):
        return JOKER
    if len(t) >= 2:
        r, s = t[:-1], t[-1]
        r = _RANK_WORDS.get(r) or LOCAL_RANK_LETTERS.get(r, r)
        if s in SUITS and is_code(r + s):  # a rank and a suit (W+K is no joker)
            return r + s
    raise CommandError(_("{token} is not a card: {card_help}").format(token=repr(token), card_help=_(CARD_HELP)))


def parse_rank(token: str) -> str:
    t = token.strip().upper()
    t = _RANK_WORDS.get(t) or LOCAL_RANK_LETTERS.get(t, t)
    if t not in RANKS:
        raise CommandError(_("{token} is not a rank: one of {ranks}").format(token=repr(token), ranks=" ".join(RANKS)))
    return t


# ----- verbs and commands ------------------------------------------------------
# Each engine lists its own verbs and game words (``Game.verbs``,
# ``Game.glossary``): the command line knows how a verb is typed, never which
# verbs a game has.

# Commands of the table itself, not moves: (words, usage, help); help (and a
# usage with more than the word) is N_() marked, translated where shown. The
# words are English (the first is the command's name); LOCAL_WORDS adds the
# words of each language.
UI_COMMANDS: list[tuple[tuple[str, ...], str, str]] = [
    # Translators: the usage lines of the table's commands: keep the first word (typed) as it is.
    (("help", "h", "?"), N_("help [COMMAND]"), N_("list the commands, or explain one")),
    (("rules",), "rules", N_("the rules of this game (Esc returns to the table)")),
    (("hint",), "hint", N_("what the bot would play now, and why")),
    (("moves", "legal"), "moves", N_("list every legal move now")),
    (("chat", "say"), N_("chat TEXT"), N_("say something to the table")),
    (("next", "ready"), "next", N_("start the next deal (after a deal ends)")),
    (("score", "sheet"), "score", N_("the score sheet of the last deal (and of the match)")),
    (("keys", "who"), "keys", N_("every player's key fingerprint, to compare in person")),
    (("away",), "away", N_("let your client play for you until you type back")),
    (("back",), "back", N_("play your own moves again")),
    (("pause",), "pause",
     N_("ask the table for a pause (in place of your next move; every other player must agree)")),
    (("continue", "unpause"), "continue", N_("end the pause (anybody may)")),
    (("yes", "agree"), "yes", N_("agree to the pause a player asks for")),
    (("no", "refuse"), "no", N_("refuse the pause a player asks for")),
    (("quit", "exit"), "quit", N_("leave the table (asks first during a game)")),
]
# The table's commands in the players' own words, typed in any language (none
# is a move's word or a card) and shown first, the English word after, where
# the player's language has one: its first word here is the one shown; the
# others are the same typed without accents, or another common word.
LOCAL_WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "help": {"pl": ("pomoc",), "hu": ("s\u00fag\u00f3", "sugo")},
    "rules": {"pl": ("zasady",), "hu": ("szab\u00e1lyok", "szabalyok")},
    "hint": {"pl": ("podpowied\u017a", "podpowiedz"), "hu": ("tipp",)},
    "moves": {"pl": ("ruchy",), "hu": ("l\u00e9p\u00e9sek", "lepesek")},
    "chat": {"pl": ("czat",), "hu": ("cseveg\u00e9s", "cseveges")},
    "next": {"pl": ("nast\u0119pne", "nastepne"), "hu": ("k\u00f6vetkez\u0151", "kovetkezo")},
    "score": {"pl": ("wynik", "wyniki"), "hu": ("pontok",)},
    "keys": {"pl": ("klucze",), "hu": ("kulcsok",)},
    "away": {"pl": ("odchodz\u0119", "odchodze"), "hu": ("t\u00e1vol", "tavol")},
    "back": {"pl": ("wracam",), "hu": ("vissza",)},
    "pause": {"pl": ("pauza",), "hu": ("sz\u00fcnet", "szunet")},
    "continue": {"pl": ("dalej",), "hu": ("tov\u00e1bb", "tovabb")},
    "yes": {"pl": ("tak",), "hu": ("igen",)},
    "no": {"pl": ("nie",), "hu": ("nem",)},
    "quit": {"pl": ("koniec", "wyjd\u017a", "wyjdz"), "hu": ("kil\u00e9p", "kilep")},
}


def command_word(name: str) -> str:
    """The word a player is shown for the table's command ``name``: their
    language's, else the English one."""
    local = LOCAL_WORDS.get(name, {}).get(i18n.language())
    return local[0] if local else name


def command_words(name: str) -> str:
    """``pomoc (help)`` in Polish, ``help`` in English: the command as help
    and the table's messages name it, the player's word first."""
    shown = command_word(name)
    return name if shown == name else f"{shown} ({name})"


def _command_usage(name: str, usage: str) -> str:
    """A command's usage line with its words as ``command_words`` gives them."""
    _word, space, arguments = _(usage).partition(" ")  # the translated usage keeps the English word first
    return command_words(name) + space + arguments


def canasta_word(game_id: str, kind: str) -> str:
    """``mixed canasta (brudna)``: the kind of a canasta in words (the engine's ``canasta_names``)."""
    text = get_game(game_id).canasta_names.get(kind)
    # Translators: a canasta of a kind the table has no word for; {kind} is the engine's word.
    return _(text) if text else _("{kind} canasta").format(kind=kind)


def verbs(game_id: str) -> tuple[Verb, ...]:
    """How the moves of ``game_id`` are typed, in the order help lists them."""
    return get_game(game_id).verbs


def _find_verb(game_id: str, word: str) -> Verb | None:
    word = word.lower()
    for verb in verbs(game_id):
        if word in verb.words:
            return verb
    return None


def table_command(word: str) -> str | None:
    """The table's command a typed word names (in English or any language's
    words), or None."""
    word = word.lower()
    for words, _usage, _help in UI_COMMANDS:
        if word in words or any(word in local for local in LOCAL_WORDS.get(words[0], {}).values()):
            return words[0]
    return None


# ----- parsing -----------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class UiCommand:
    """A command for the table itself: ``name`` is its canonical word."""

    name: str
    arg: str = ""


_FREEZE_WORDS = ("x", "freeze", "cross", "crosswise")


# The card that must come first in an action's "cards" (a swap's natural).
FIRST = "_first"


def _parse_args(verb: Verb, tokens: list[str]) -> dict:
    """The fields the player gave: meld (0-based), wild, cards, as, freeze."""
    fields: dict = {}
    cards: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        low = tok.lower()
        if verb.has("meld") and tok.isdigit() and "meld" not in fields and not cards:
            if int(tok) < 1:
                raise CommandError(_("melds are numbered from 1, as shown on the table"))
            fields["meld"] = int(tok) - 1
        elif verb.has("as") and low == "as":
            if i + 1 >= len(tokens):
                raise CommandError(_("as which rank? e.g. pl 9C as 8"))
            fields["as"] = parse_rank(tokens[i + 1])
            i += 1
        elif verb.has("as") and "=" in tok:
            card, _eq, r = tok.partition("=")
            cards.append(parse_card(card))
            fields["as"] = parse_rank(r)
        elif verb.has("x") and low in _FREEZE_WORDS:
            fields["freeze"] = True
        elif verb.has("wild") and "wild" not in fields:
            fields["wild"] = parse_card(tok)
        elif verb.has("natural") and FIRST not in fields:
            fields[FIRST] = parse_card(tok)
        else:
            cards.append(parse_card(tok))
        i += 1
    slots = verb.slots
    if "meld" in slots and "meld" not in fields:
        raise CommandError(_("which meld? the number shown on the table: {usage}").format(usage=verb.usage()))
    if "wild" in slots and "wild" not in fields:
        raise CommandError(_("which wild comes out of the meld? {usage}").format(usage=verb.usage()))
    if "natural" in slots and FIRST not in fields:
        raise CommandError(_("which card of the meld's rank goes in? {usage}").format(usage=verb.usage()))
    if FIRST in fields:
        cards.insert(0, fields[FIRST])
    if ("cards" in slots or "card" in slots) and not cards:
        which = _("which cards? {usage}") if "cards" in slots else _("which card? {usage}")
        raise CommandError(which.format(usage=verb.usage()))
    if "card" in slots and len(cards) > 1:
        raise CommandError(_("one card only: {usage}").format(usage=verb.usage()))
    if not (verb.has("cards") or verb.has("card")) and cards:
        raise CommandError(_("{command} takes no cards: {usage}").format(command=verb.short, usage=verb.usage()))
    if cards:
        fields["cards"] = cards
    return fields


def _matches(action: dict, fields: dict) -> bool:
    for key, value in fields.items():
        if key == FIRST:
            if not action.get("cards") or action["cards"][0] != value:
                return False
        elif key == "cards":
            if Counter(action.get("cards") or []) != Counter(value):
                return False
        elif isinstance(value, bool):
            # Engines leave a false flag out ({"type": "discard"} is not crosswise).
            if bool(action.get(key)) != value:
                return False
        elif action.get(key) != value:
            return False
    return True


def _bare_cards_verb(game_id: str, legal: list[dict], count: int) -> Verb | None:
    """The verb meant by typing ``count`` cards alone: the game's natural card
    move (``Game.card_moves``), None if cards alone are no move in the game."""
    meant = get_game(game_id).card_moves(count)
    types = {a["type"] for a in legal}
    chosen = next((t for t in meant if t in types), meant[0] if meant else None)
    return next((v for v in verbs(game_id) if v.type == chosen), None)


def parse(game_id: str, text: str, legal: list[dict], view: dict | None = None) -> UiCommand | dict:
    """What the player typed: a table command, or the action to send. The
    action is the matching legal action when there is one, else the action as
    typed (the engine will explain why it is refused). Raises CommandError for
    input that is neither. ``view`` (the table now) lets a meld number be
    checked in the numbering the player sees."""
    text = text.strip()
    if not text:
        raise CommandError(_("type a move or a command; help lists them"))
    word, _space, rest = text.partition(" ")
    ui = table_command(word)
    if ui is not None:
        return UiCommand(ui, rest.strip())
    tokens = text.split()
    verb = _find_verb(game_id, tokens[0])
    if verb is not None:
        tokens = tokens[1:]
    else:
        unknown = CommandError(_("unknown command {word}; help lists the commands").format(word=repr(tokens[0])))
        try:
            parse_card(tokens[0].partition("=")[0])
        except CommandError:
            raise unknown from None
        verb = _bare_cards_verb(game_id, legal, len(tokens))
        if verb is None:
            raise unknown
    fields = _parse_args(verb, tokens)
    melds = (view or {}).get("melds")
    if "meld" in fields and melds is not None and fields["meld"] >= len(melds):
        number = fields["meld"] + 1
        if melds:
            raise CommandError(_("there is no meld {number} on the table: they are numbered 1 to {last}").format(
                number=number, last=len(melds)))
        raise CommandError(_("there is no meld {number} on the table: there are none yet").format(number=number))
    fields_typed = {"type": verb.type, **fields}
    found = [a for a in legal if _matches(a, fields_typed)]
    if len(found) > 1:
        # The player left out a field the verb has a default for (freeze: no).
        narrowed = [a for a in found if _matches(a, {k: v for k, v in verb.defaults if k not in fields})]
        found = narrowed or found
    if len({_canonical(game_id, a) for a in found}) == 1:
        found = found[:1]  # the same move listed twice (cards in another order)
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        options = sorted({format_action(game_id, a) for a in found})
        # Translators: the moves that fit what the player typed, e.g. "m KH KS JK | m KH KS 2C".
        raise CommandError(_("which one? {moves}").format(moves=" | ".join(options)))
    action = {k: v for k, v in fields_typed.items() if k != FIRST}
    for key, value in verb.defaults:
        if value:
            action.setdefault(key, value)
    return action


# ----- actions as text ---------------------------------------------------------

def _verb_for(game_id: str, action: dict) -> Verb:
    candidates = [v for v in verbs(game_id) if v.type == action.get("type")]
    if not candidates:
        raise CommandError(f"no command makes a {action.get('type')!r} action in {game_id}")
    for v in candidates:
        if all(bool(action.get(k)) == val for k, val in v.defaults):
            return v
    return candidates[0]


def typed_card(code: str, local: bool = True) -> str:
    """A card as the player types it: the code, its rank in the letter the
    cards are drawn with (``DH`` for QH in Polish; ``parse_card`` reads
    both); with ``local`` false the code itself."""
    if not local or not is_code(code) or code == JOKER:
        return code
    return rank_label(code[:-1]) + code[-1]


def format_action(game_id: str, action: dict, local: bool = True) -> str:
    """The short command that makes ``action``: parse(format_action(a)) == a;
    the cards as the player sees them (``typed_card``), or with ``local``
    false as their codes."""
    verb = _verb_for(game_id, action)
    parts = [verb.short]
    if verb.has("meld") and action.get("meld") is not None:
        parts.append(str(action["meld"] + 1))
    if verb.has("wild") and action.get("wild"):
        parts.append(typed_card(action["wild"], local))
    parts += [typed_card(c, local) for c in action.get("cards") or []]
    if verb.has("as") and action.get("as"):
        parts += ["as", rank_label(action["as"]) if local else action["as"]]
    if verb.has("x") and action.get("freeze"):
        parts.append("x")
    return " ".join(parts)


def _canonical(game_id: str, action: dict) -> str:
    """The short form with the cards in a fixed order: equal for the same move."""
    cards = list(action.get("cards") or [])
    keep = 1 if _verb_for(game_id, action).has("natural") else 0
    return format_action(game_id, {**action, "cards": cards[:keep] + sorted(cards[keep:])})


def completions(game_id: str, text: str, legal: list[dict]) -> list[str]:
    """Whole command lines that complete ``text``: the legal moves in their
    short form (a long verb typed is understood), then table commands."""
    typed = text.lstrip().lower()
    word, space, rest = typed.partition(" ")
    verb = _find_verb(game_id, word)
    if verb is not None and space:
        typed = verb.short + " " + rest
    out: list[str] = []
    seen: set[str] = set()
    for action in legal:
        # as the cards are drawn, or in codes where the player began typing those
        line = next((form for form in (format_action(game_id, action), format_action(game_id, action, local=False))
                     if form.lower().startswith(typed)), None)
        if line is not None and line not in seen:
            seen.add(line)
            out.append(line)
    if not space:
        # the player's word for each command, or the English one where that is what is being typed
        for words, _usage, _help in UI_COMMANDS:
            word = next((w for w in (command_word(words[0]), words[0]) if w.startswith(typed)), None)
            if word is not None:
                out.append(word)
    return out


# ----- help ----------------------------------------------------------------------

def help_text(game_id: str, topic: str = "") -> str:
    """``help``: every command; ``help WORD``: one command or game word."""
    topic = topic.strip().lower()
    if topic:
        found = []
        verb = _find_verb(game_id, topic)
        if verb is not None:
            found.append(f"{verb.usage()}\n  {verb.explain()}")
        found += [f"{_command_usage(words[0], usage)}\n  {_(text)}" for words, usage, text in UI_COMMANDS
                  if table_command(topic) == words[0]]
        # A command may also be a game word (pas, bessa): say both.
        found += [f"{word}: {_(text)}" for word, text in get_game(game_id).glossary if topic == word.lower()]
        if not found:
            raise CommandError(_("no command or word {word} in {game}; help lists them").format(
                word=repr(topic), game=game_id))
        return "\n".join(found)
    lines = [_("Moves in {game}:").format(game=game_id)]
    lines += [f"  {v.usage():<28} {v.explain()}" for v in verbs(game_id)]
    lines.append(_("Table:"))
    lines += [f"  {_command_usage(words[0], usage):<28} {_(text)}" for words, usage, text in UI_COMMANDS]
    lines.append(_("Words:"))
    lines += [f"  {word:<28} {_(text)}" for word, text in get_game(game_id).glossary]
    # Translators: the last line of help; {card_help} explains how a card is typed.
    card_help = _(CARD_HELP)
    lines.append(_("Tab completes the legal moves. {card_help}.").format(card_help=card_help[:1].upper() + card_help[1:]))
    lines.append(_(RANK_LETTERS_HELP) + ".")
    return "\n".join(lines)


_CARD_RE = re.compile(r"(?<![\w?])(10|[2-9JQKA])([CDHS])(?!\w)|(?<![\w?])(JK)(?!\w)")


def split_cards(text: str) -> list[tuple[str, bool]]:
    """``text`` cut into (piece, is_card) so card codes in free text (the
    log) can be shown as cards."""
    out: list[tuple[str, bool]] = []
    pos = 0
    for m in _CARD_RE.finditer(text):
        if m.start() > pos:
            out.append((text[pos:m.start()], False))
        out.append((m.group(0), True))
        pos = m.end()
    if pos < len(text):
        out.append((text[pos:], False))
    return out
