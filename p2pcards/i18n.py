"""The player's language: gettext catalogs for English, Polish and Hungarian.

Every word a player reads goes through :func:`_` (or :func:`ngettext` when it
depends on a number: Polish has three plural forms, Hungarian one in practice).
English is the source language; ``locale/<lang>/LC_MESSAGES/p2pcards.po`` hold
the translations (kept with Babel, see ``tools/catalogs.py``) and are compiled
to ``.mo`` when the package is built or installed.  A source checkout whose
``.mo`` is missing or older than its ``.po`` compiles the ``.po`` in memory, so
an edited catalog is seen at once.

Strings are looked up when they are shown, not when a module is imported:
module-level texts are marked with :func:`N_` and passed through :func:`_`
where they are used, so ``--lang`` can be set after the imports.

What travels in the log (abort reasons, chat) stays as it was written: the
log is language-neutral and each client words it in its own language.
"""

from __future__ import annotations

import functools
import gettext as _gettext
import io
import os
import re
import string
from pathlib import Path

LANGUAGES = ("en", "pl", "hu")
DOMAIN = "p2pcards"
LOCALE_DIR = Path(__file__).with_name("locale")

_current = "en"
_translations: dict[str, _gettext.NullTranslations] = {}


class UnknownLanguage(ValueError):
    pass


def choose_language(flag: str | None = None, environ=None) -> str:
    """``--lang``, else ``P2PCARDS_LANG``, else the locale (``LANGUAGE``,
    ``LC_ALL``, ``LC_MESSAGES``, ``LANG``: the first one set, as gettext reads
    them) when it is Polish or Hungarian, else English."""
    environ = os.environ if environ is None else environ
    if flag:
        if flag not in LANGUAGES:
            raise UnknownLanguage(_("unknown language {name}; the languages are {languages}").format(
                name=repr(flag), languages=", ".join(LANGUAGES)))
        return flag
    wanted = environ.get("P2PCARDS_LANG", "").strip().lower()[:2]
    if wanted in LANGUAGES:
        return wanted
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(var)
        if value:
            # LANGUAGE may be a list ("pl:en"); C/POSIX mean English.
            code = value.split(":")[0][:2].lower()
            return code if code in LANGUAGES else "en"
    return "en"


def _compile_po(po: Path) -> _gettext.GNUTranslations:
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as f:
        catalog = read_po(f, locale=po.parent.parent.name, domain=DOMAIN)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return _gettext.GNUTranslations(buf)


def translations(lang: str) -> _gettext.NullTranslations:
    """The catalog of ``lang`` (English: the source strings themselves)."""
    if lang in _translations:
        return _translations[lang]
    if lang == "en":
        found: _gettext.NullTranslations = _gettext.NullTranslations()
    else:
        po = LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"
        mo = po.with_suffix(".mo")
        if mo.is_file() and (not po.is_file() or mo.stat().st_mtime >= po.stat().st_mtime):
            with mo.open("rb") as f:
                found = _gettext.GNUTranslations(f)
        elif po.is_file():
            found = _compile_po(po)
        else:
            found = _gettext.NullTranslations()
    _translations[lang] = found
    return found


def set_language(lang: str) -> None:
    """Make ``lang`` the language of everything shown from now on."""
    global _current
    if lang not in LANGUAGES:
        raise UnknownLanguage(lang)
    translations(lang)
    _current = lang


def language() -> str:
    return _current


# ----- the Hungarian article ---------------------------------------------------
# A Hungarian message writes "a(z)" before a value it does not know yet: "az"
# stands before a vowel ("az Ada", "az 5.", "az 1."), "a" before a consonant
# ("a kanaszta", "a 78."). Once the value is in, the right one is written.
_ARTICLE = re.compile(r"(?<!\w)([Aa])\(z\) ([\"'„(]*)(\w*)")
_VOWELS = set("aáeéiíoóöőuúüű")
# Letters whose Hungarian names begin with a vowel (ef, el, em, en, er, es,
# iksz, ipszilon), for codes read letter by letter ("az R3", "az S").
_VOWEL_LETTER_NAMES = set("AÁEÉIÍOÓÖŐUÚÜŰFLMNRSXY")


def hungarian_article(word: str) -> str:
    """``az`` or ``a``, as spoken before ``word`` (a number as it is read:
    "az 5", "az 1000" (ezer), "a 10", "a 78")."""
    digits = re.match(r"\d+", word)
    if digits:
        number = digits.group().lstrip("0") or "0"
        # the number's first word: öt... (5, 50, 500, 5000...); egy/ezer/egymillió (1, 1xxx, 1xxxxxx)
        return "az" if number[0] == "5" or (number[0] == "1" and len(number) % 3 == 1) else "a"
    if not word:
        return "a"
    if word.isupper() and len(word) <= 3:
        return "az" if word[0] in _VOWEL_LETTER_NAMES else "a"
    return "az" if word[0].lower() in _VOWELS else "a"


def _articles(text: str) -> str:
    if "(z) " not in text:
        return text

    def fixed(m: re.Match) -> str:
        article = hungarian_article(m.group(3))
        return (article.capitalize() if m.group(1) == "A" else article) + " " + m.group(2) + m.group(3)
    return _ARTICLE.sub(fixed, text)


class _Template(str):
    """A translated message whose ``format`` writes the articles its values need."""

    def format(self, *args, **kwargs) -> str:
        return _articles(str.format(self, *args, **kwargs))


def _template_of(translated: str) -> str:
    return _Template(translated) if "(z) " in translated else translated


def _(message: str) -> str:
    return _template_of(translations(_current).gettext(message))


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of ``singular``/``plural`` for ``n`` in the current language
    (Polish: 1 karta, 2–4 karty, 5 kart, 22 karty)."""
    return _template_of(translations(_current).ngettext(singular, plural, n))


def pgettext(context: str, message: str) -> str:
    """``message`` as meant in ``context`` (a short English word can need two
    translations, e.g. a card's rank and a verb)."""
    return _template_of(translations(_current).pgettext(context, message))


def npgettext(context: str, singular: str, plural: str, n: int) -> str:
    return _template_of(translations(_current).npgettext(context, singular, plural, n))


def N_(message: str, about: "Text | None" = None, **fields) -> "Text":
    """Marks a text for the catalogs without translating it now: a module-level
    text (translate it with :func:`_` where it is shown), or, with ``fields``,
    a message that must stay English where it is kept (the log, JSON) and be
    translated where a player reads it (:func:`shown`).

    ``about``: the same said of the player in the third person, past tense,
    ``{name}`` among its fields (a refusal "you hold {card} and must play it"
    the audit tells as "{name} held {card} and had to play it"): see
    :meth:`Text.said_of`."""
    if fields or about is not None:
        return Text(message, fields=fields, about=about)
    # The engines return their fixed reasons in hot loops (a refused meld shape): one Text each.
    text = _plain.get(message)
    if text is None:
        text = _plain[message] = Text(message)
    return text


_plain: dict[str, "Text"] = {}


class Text(str):
    """A message as a ``str`` in English (what the log, the JSON output and
    the tests see) that knows how to say itself in the reader's language:
    :func:`shown` (or :meth:`translated`) gives that. Made by :func:`N_` and
    the :class:`lazy` markers; its fields may be Texts themselves."""

    def __new__(cls, message: str, plural: str | None = None, n: int | None = None,
                context: str | None = None, fields: dict | None = None, about: "Text | None" = None):
        fields = dict(fields or {})
        if plural is not None:
            fields.setdefault("n", n)
        english = plural if plural is not None and n != 1 else message
        self = super().__new__(cls, english.format(**fields) if fields else english)
        self.message, self.plural, self.n, self.context, self.fields = message, plural, n, context, fields
        self.about = about
        return self

    def said_of(self, name: str) -> "Text | None":
        """This message told of player ``name`` in the third person (what it
        was made with as ``about``, with this one's fields), or None."""
        if self.about is None:
            return None
        return Text(self.about.message, context=self.about.context, fields={**self.fields, "name": name})

    def translated(self) -> str:
        t = translations(_current)
        if self.plural is not None:
            form = (t.npgettext(self.context, self.message, self.plural, self.n) if self.context
                    else t.ngettext(self.message, self.plural, self.n))
        else:
            form = t.pgettext(self.context, self.message) if self.context else t.gettext(self.message)
        if not self.fields:
            return form
        return _articles(form.format(**{k: shown(v) for k, v in self.fields.items()}))


class lazy:
    """Markers for :class:`Text` messages the extractor finds by their names:
    ``lazy.ngettext("{n} card", "{n} cards", n, **fields)`` and
    ``lazy.pgettext(context, message, **fields)``."""

    @staticmethod
    def ngettext(singular: str, plural: str, n: int, **fields) -> Text:
        return Text(singular, plural, n, fields=fields)

    @staticmethod
    def pgettext(context: str, message: str, **fields) -> Text:
        return Text(message, context=context, fields=fields)

    @staticmethod
    def npgettext(context: str, singular: str, plural: str, n: int, **fields) -> Text:
        return Text(singular, plural, n, context=context, fields=fields)


def shown(value) -> str:
    """``value`` as the reader sees it: a :class:`Text` (or an exception
    whose message is one) in the current language, a rank in the letters
    the player asked for; anything else, e.g. free text a peer wrote, as it is."""
    if isinstance(value, BaseException) and len(value.args) == 1:
        value = value.args[0]
    if isinstance(value, str) and callable(getattr(value, "translated", None)):
        return value.translated()  # a Text, or a card rank (cards.Rank)
    return str(value)
def message_of(exc: BaseException) -> str:
    """The message ``exc`` was raised with, kept the :class:`Text` it may be
    (so it is shown in the reader's language; its English is what a log or
    the JSON keeps); else its ``str``."""
    if len(exc.args) == 1 and isinstance(exc.args[0], str):
        return exc.args[0]
    return str(exc)


def known(text, templates=None) -> str:
    """``text`` in the player's language if it is a known English message
    (one of ``templates``, or any message of the catalog when none are given),
    its ``{placeholders}`` filled in, else ``text`` as it is.

    For words that come from elsewhere in English: a reason another peer gave
    over the network, an abort's detail in the log, a note the audit keeps in
    its JSON. A text no message fits (a peer's own words, another version's
    wording) is shown as it came; the values taken from it are inserted, never
    formatted again; a ``{reason}``, ``{detail}`` or ``{error}`` is looked up
    in turn ("peer rejected us: {reason}").
    The matching costs linear time in the text (no backtracking), and texts
    longer than a reason can be are left alone: a crafted text cannot stall
    the reader."""
    text = "" if text is None else str(text)
    given = None if templates is None else _templates_of(tuple(templates))
    return _known(text, given, 3)


def worded(value, templates=None) -> str:
    """A detail as the reader sees it: a live :class:`Text` (found here, in
    this process) in the reader's language; English read back from a log or a
    peer through :func:`known` (``templates`` first, then the catalog)."""
    if isinstance(value, Text):
        return value.translated()
    text = "" if value is None else str(value)
    found = known(text, templates) if templates is not None else text
    return known(text) if found == text else found


# A reason is a sentence: a catalog message counts as its form only with this
# many letters of its own, and with values no longer than a short sentence.
_KNOWN_MAX = 1024
_MIN_LITERAL = 8
_MAX_VALUE = 160
_WORDS_FIELDS = ("reason", "detail", "error")


def _known(text: str, given, depth: int) -> str:
    if _current == "en" or not text or len(text) > _KNOWN_MAX:
        return text
    if given is None:
        exact = _(text)
        if exact != text:
            return exact
        candidates = _catalog_templates(_current)
    else:
        candidates = given
    for msgid, pieces, names in candidates:
        fields = _fields_of(text, pieces, names, _MAX_VALUE if given is None else _KNOWN_MAX)
        if fields is None:
            continue
        if not fields and given is not None:
            return _(msgid)
        if depth > 1:  # a reason is words again; names, addresses and numbers stay as they came
            fields = {k: _known(v, given, depth - 1) if k in _WORDS_FIELDS else v for k, v in fields.items()}
        try:
            return _(msgid).format(**fields)
        except (KeyError, IndexError, ValueError):
            return text
    return text


def _template(msgid: str):
    """``msgid`` cut into its literal pieces and field names, or None when it
    cannot be matched backwards (positional or formatted fields)."""
    try:
        parsed = list(string.Formatter().parse(msgid))
    except ValueError:
        return None
    pieces = [literal for literal, _f, _s, _c in parsed]
    names = [name for _l, name, _s, _c in parsed if name is not None]
    if any(not n.isidentifier() for n in names) or any(spec or conv for _l, n, spec, conv in parsed if n):
        return None
    if len(pieces) == len(names):
        pieces.append("")
    return msgid, pieces, names


@functools.lru_cache(maxsize=64)
def _templates_of(templates: tuple) -> list:
    found = [t for t in map(_template, map(str, templates)) if t is not None]
    return sorted(found, key=lambda t: -sum(len(p) for p in t[1]))


@functools.lru_cache(maxsize=None)
def _catalog_templates(lang: str) -> list:
    """The messages of ``lang``'s catalog with placeholders (plural forms are
    not looked up backwards), longest literal text first; "seat {seat}" and
    the like would fit any text and are left out."""
    catalog = getattr(translations(lang), "_catalog", {})
    found = [t for t in (_template(k) for k in catalog if isinstance(k, str) and "{" in k and "\x04" not in k)
             if t is not None and t[2] and sum(len(p) for p in t[1]) >= _MIN_LITERAL]
    return sorted(found, key=lambda t: -sum(len(p) for p in t[1]))


def _fields_of(text: str, pieces: list[str], names: list[str], max_value: int) -> dict | None:
    """The field values if ``text`` is ``pieces`` with values between them:
    each literal found at its first place after the last (no backtracking,
    so a long crafted text costs linear time per message)."""
    if not text.startswith(pieces[0]):
        return None
    if not names:
        return {} if text == pieces[0] else None
    pos, values = len(pieces[0]), []
    for i, literal in enumerate(pieces[1:], 1):
        if i == len(pieces) - 1 and literal == "":
            end = len(text)
        elif i == len(pieces) - 1:
            end = len(text) - len(literal) if text.endswith(literal) else -1
            if end < pos:
                return None
        else:
            end = text.find(literal, pos + 1)
        if end <= pos or end - pos > max_value:
            return None
        values.append(text[pos:end])
        pos = end + len(literal)
    if pos != len(text) or len(values) != len(names):
        return None
    fields: dict = {}
    for name, value in zip(names, values):
        if fields.get(name, value) != value:
            return None
        fields[name] = value
    return fields


# Translators: the words that answer yes, space-separated, in lower case (English ones always work).
_YES_WORDS = N_("y yes")
# Translators: the words that answer no, space-separated, in lower case (English ones always work).
_NO_WORDS = N_("n no")


def answer(text: str) -> bool | None:
    """A typed yes (True) or no (False), or None if it is neither: the words
    of every language we speak ("yes"/"no", "tak"/"nie", "igen"/"nem"), so a
    Polish player at an English table is understood too."""
    word = text.strip().lower()
    yes = {w for lang in LANGUAGES for w in translations(lang).gettext(_YES_WORDS).lower().split()}
    no = {w for lang in LANGUAGES for w in translations(lang).gettext(_NO_WORDS).lower().split()}
    if word in yes and word not in no:
        return True
    if word in no and word not in yes:
        return False
    return None


def printable(text: str, max_len: int) -> str:
    """Text from the network made safe for a terminal: at most ``max_len``
    characters, each one the name rule refuses (controls such as ESC and BEL)
    shown as '?'. For what is displayed, not checked (names are refused instead)."""
    text = text[:max_len]
    if text.isprintable():  # most text: one C loop, nothing to replace
        return text
    return "".join(c if c.isprintable() else "?" for c in text)
