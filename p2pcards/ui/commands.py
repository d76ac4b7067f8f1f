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

from p2pcards.cards import JOKER, LOCAL_RANK_LETTERS, RANKS, SUITS, SUIT_SYMBOLS, is_code
from p2pcards.i18n import N_, _, pgettext
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


# ----- the verbs of each game --------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Verb:
    """One move command: ``words[0]`` is its short form, shown in completions.

    ``args`` is a space-separated list of slots, in the order typed: ``meld``
    (a meld number), ``wild`` (the wild card taken out of that meld),
    ``natural`` (the card put in its place, first of the action's cards),
    ``card`` (exactly one), ``cards`` (one or more), ``cards?`` (any number),
    ``as?`` (``as RANK``), ``x?`` (crosswise); a trailing ``?`` makes a slot optional.
    """

    words: tuple[str, ...]
    type: str                 # the action type it makes
    args: str
    help: str                 # N_() marked: translated where shown (``explain``)
    defaults: tuple = ()      # (field, value) pairs assumed when the player does not say

    @property
    def short(self) -> str:
        return self.words[0]

    @property
    def slots(self) -> tuple[str, ...]:
        return tuple(self.args.split())

    def has(self, slot: str) -> bool:
        return slot in self.slots or slot + "?" in self.slots

    def explain(self) -> str:
        """What the command does, in the player's language."""
        return _(self.help)

    def usage(self) -> str:
        # Translators: the placeholders of a command's usage line ("m CARD...", "a N CARD...");
        # the player types the command words and "as" themselves, in English.
        card, wild, rank = pgettext("usage", "CARD"), pgettext("usage", "WILD"), pgettext("usage", "RANK")
        shown = {"meld": "N", "meld?": "[N]", "wild": wild, "natural": card, "card": card, "cards": f"{card}...",
                 "cards?": f"[{card}...]", "as?": f"[as {rank}]", "x?": "[x]"}
        return " ".join(["/".join(self.words)] + [shown[slot] for slot in self.slots])


_CANASTA_COMMON = [
    Verb(("dr", "draw"), "draw", "", N_("draw the top card of the stock")),
    Verb(("m", "meld"), "meld", "cards", N_("lay a new meld: m KH KS KD (wilds JK and 2 may join)")),
    Verb(("a", "add"), "add", "meld cards", N_("add cards to meld number N as shown on the table: a 2 KH")),
]

VERBS: dict[str, list[Verb]] = {
    "kanasta": [
        _CANASTA_COMMON[0],
        Verb(("t", "take"), "take_pile", "meld? cards?",
             N_("after drawing, take the discard pile, its top card going at once into a meld: "
                "t KH KS (a new meld with these hand cards) or t 2 (onto meld 2)")),
        *_CANASTA_COMMON[1:],
        Verb(("sw", "swap"), "swap", "meld wild natural cards",
             N_("take the wild out of meld N, putting a natural card of its rank in, and meld the wild at once "
                "with more hand cards: sw 2 JK KH 5H 5S (JK out of meld 2, KH in, JK 5H 5S a new meld)")),
        Verb(("r3", "red3"), "red3", "card", N_("lay a red 3 apart and draw a replacement: r3 3H")),
        Verb(("d", "discard"), "discard", "card", N_("discard one card face up; this ends your turn")),
    ],
    "kanaszta": [
        _CANASTA_COMMON[0],
        Verb(("t", "take"), "take_pile", "meld? cards?",
             N_("take the whole discard pile instead of drawing: t KH KS (its top card melded with these) or t 2 (onto meld 2)")),
        *_CANASTA_COMMON[1:],
        Verb(("d", "discard"), "discard", "card x?",
             N_("discard one card face up, ending your turn; d JK x discards a wild crosswise and freezes the pile"),
             defaults=(("freeze", False),)),
        Verb(("x", "freeze"), "discard", "card", N_("discard a wild crosswise: the pile is frozen (x JK)"),
             defaults=(("freeze", True),)),
        Verb(("r3", "red3"), "red3", "cards?",
             N_("lay your red 3s face up, a replacement drawn for each: r3 3H 3D (r3 alone when you have none)")),
    ],
    "warkocz": [
        Verb(("pl", "play"), "play", "cards as?",
             N_("lay the next card(s) of the row, 3 or 4 of a rank together: pl 7H, pl 8D 8D 8H; "
                "the warkocz 9C stands for any rank: pl 9C as 8 (typing the cards alone works too)")),
        Verb(("p", "pas", "pass"), "pass", "", N_("pas: you cannot continue the row (\"bez dziewi\u0105tki\")")),
    ],
    "bura": [
        Verb(("l", "lead"), "lead", "cards", N_("lead 1-3 cards of one suit: l 7C 9C (typing the cards alone works too)")),
        Verb(("b", "beat"), "beat", "cards", N_("beat every card of the best play, each by a higher card of its suit or a trump: b QS")),
        Verb(("th", "throw"), "throw", "cards", N_("play as many cards face down, unseen: th 7C")),
        Verb(("decl", "declare"), "declare", "", N_("declare after taking a trick: 31 or more points wins the bank, less pays the bank")),
        Verb(("p", "pas", "pass"), "pass", "", N_("pas: do not declare now")),
        Verb(("bessa",), "bessa", "cards?", N_("bessa: show three trumps or three aces and take the bank")),
    ],
}

# Commands of the table itself, not moves: (words, usage, help); help (and a
# usage with more than the word) is N_() marked, translated where shown. The words stay English (they
# are typed), with a local word or two where players would type one.
UI_COMMANDS: list[tuple[tuple[str, ...], str, str]] = [
    # Translators: the usage lines of the table's commands: keep the first word (typed) as it is.
    (("help", "h", "?", "pomoc", "s\u00fag\u00f3"), N_("help [COMMAND]"), N_("list the commands, or explain one")),
    (("rules", "zasady", "szab\u00e1lyok"), "rules", N_("the rules of this game (Esc returns to the table)")),
    (("hint",), "hint", N_("what the bot would play now, and why")),
    (("moves", "legal"), "moves", N_("list every legal move now")),
    (("chat", "say"), N_("chat TEXT"), N_("say something to the table")),
    (("next", "ready"), "next", N_("start the next deal (after a deal ends)")),
    (("score", "sheet"), "score", N_("the score sheet of the last deal (and of the match)")),
    (("keys", "who"), "keys", N_("every player's key fingerprint, to compare in person")),
    (("away",), "away", N_("let your client play for you until you type back")),
    (("back",), "back", N_("play your own moves again")),
    (("pause", "pauza", "sz\u00fcnet"), "pause",
     N_("ask the table for a pause (in place of your next move; every other player must agree)")),
    (("continue", "unpause", "dalej", "tov\u00e1bb"), "continue", N_("end the pause (anybody may)")),
    (("yes", "agree", "tak", "igen"), "yes", N_("agree to the pause a player asks for")),
    (("no", "refuse", "nie", "nem"), "no", N_("refuse the pause a player asks for")),
    (("quit", "exit"), "quit", N_("leave the table (asks first during a game)")),
]

# Words players of these games use, explained in help (the word as they say it,
# the explanation N_() marked).
GLOSSARY: dict[str, list[tuple[str, str]]] = {
    "kanasta": [
        ("kanasta", N_("a meld of 7 or more cards: clean 500, mixed 300, jokers only 1000")),
        ("czysta", N_("a clean kanasta: 7 or more natural cards (wilds may lie on top), 500")),
        ("brudna", N_("a mixed kanasta: wilds among fewer than 7 naturals, 300")),
        ("dzika karta", N_("wild card: JK or 2")),
    ],
    "kanaszta": [
        ("kanaszta", N_("a meld of 7 or more cards: natural 500, mixed 300")),
        ("tiszta", N_("a natural kanaszta: no wild in it, 500")),
        ("kevert", N_("a mixed kanaszta: 1 to 3 wilds in it, 300")),
        ("befagyasztás", N_("freezing the pile by discarding a wild crosswise (d JK x)")),
    ],
    "warkocz": [
        ("warkocz", N_("the 9\u2663: it stands for any card; other players pay its player")),
        ("pas", N_("pass: you cannot continue the row")),
        ("gag", N_("a card that ends the row: a K, or one whose next rank is used up; the same player leads again")),
        ("aria", N_("going out in one move: score doubled (x4 if the last card is the warkocz)")),
    ],
    "bura": [
        ("bura", N_("the game: take tricks, declare 31 points to win the bank")),
        ("bessa", N_("three trumps or three aces in hand: show them and take the bank")),
        ("pas", N_("do not declare now")),
    ],
}


# The canasta kinds of the engines' views in words: the English name and, if
# any, the players' own (a Polish or Hungarian player reads their word).
_CANASTA_KINDS = {
    ("kanasta", "clean"): N_("clean canasta (czysta)"),
    ("kanasta", "mixed"): N_("mixed canasta (brudna)"),
    ("kanaszta", "natural"): N_("natural canasta (tiszta)"),
    ("kanaszta", "mixed"): N_("mixed canasta (kevert)"),
    ("kanasta", "joker"): N_("joker canasta"),
}


def canasta_word(game_id: str, kind: str) -> str:
    """``mixed canasta (brudna)``: the kind of a canasta in words."""
    text = _CANASTA_KINDS.get((game_id, kind))
    # Translators: a canasta of a kind the table has no word for; {kind} is the engine's word.
    return _(text) if text else _("{kind} canasta").format(kind=kind)


def verbs(game_id: str) -> list[Verb]:
    return VERBS[game_id]


def _find_verb(game_id: str, word: str) -> Verb | None:
    word = word.lower()
    for verb in VERBS[game_id]:
        if word in verb.words:
            return verb
    return None


def _ui_command(word: str) -> str | None:
    word = word.lower()
    for words, _usage, _help in UI_COMMANDS:
        if word in words:
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


def _bare_cards_verb(game_id: str, legal: list[dict], count: int) -> Verb:
    """The verb meant by typing ``count`` cards alone: the game's natural card
    move (in the canastas one card is a discard, more a meld)."""
    canasta = ("discard",) if count == 1 else ("meld",)
    natural = {"warkocz": ("play",), "bura": ("lead", "beat"), "kanasta": canasta, "kanaszta": canasta}
    types = {a["type"] for a in legal}
    for t in natural[game_id]:
        if t in types:
            return next(v for v in VERBS[game_id] if v.type == t)
    return next(v for v in VERBS[game_id] if v.type == natural[game_id][0])


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
    ui = _ui_command(word)
    if ui is not None:
        return UiCommand(ui, rest.strip())
    tokens = text.split()
    verb = _find_verb(game_id, tokens[0])
    if verb is not None:
        tokens = tokens[1:]
    else:
        try:
            parse_card(tokens[0].partition("=")[0])
        except CommandError:
            raise CommandError(_("unknown command {word}; help lists the commands").format(word=repr(tokens[0]))) from None
        verb = _bare_cards_verb(game_id, legal, len(tokens))
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
    candidates = [v for v in VERBS[game_id] if v.type == action.get("type")]
    if not candidates:
        raise CommandError(f"no command makes a {action.get('type')!r} action in {game_id}")
    for v in candidates:
        if all(bool(action.get(k)) == val for k, val in v.defaults):
            return v
    return candidates[0]


def format_action(game_id: str, action: dict) -> str:
    """The short command that makes ``action``: parse(format_action(a)) == a."""
    verb = _verb_for(game_id, action)
    parts = [verb.short]
    if verb.has("meld") and action.get("meld") is not None:
        parts.append(str(action["meld"] + 1))
    if verb.has("wild") and action.get("wild"):
        parts.append(action["wild"])
    parts += list(action.get("cards") or [])
    if verb.has("as") and action.get("as"):
        parts += ["as", action["as"]]
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
        line = format_action(game_id, action)
        if line.lower().startswith(typed) and line not in seen:
            seen.add(line)
            out.append(line)
    if not space:
        out += [words[0] for words, _usage, _help in UI_COMMANDS if words[0].startswith(typed)]
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
        found += [f"{_(usage)}\n  {_(text)}" for words, usage, text in UI_COMMANDS if topic in words]
        # A command may also be a game word (pas, bessa): say both.
        found += [f"{word}: {_(text)}" for word, text in GLOSSARY[game_id] if topic == word.lower()]
        if not found:
            raise CommandError(_("no command or word {word} in {game}; help lists them").format(
                word=repr(topic), game=game_id))
        return "\n".join(found)
    lines = [_("Moves in {game}:").format(game=game_id)]
    lines += [f"  {v.usage():<28} {v.explain()}" for v in VERBS[game_id]]
    lines.append(_("Table:"))
    lines += [f"  {_(usage):<28} {_(text)}" for _words, usage, text in UI_COMMANDS]
    lines.append(_("Words:"))
    lines += [f"  {word:<28} {_(text)}" for word, text in GLOSSARY[game_id]]
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
