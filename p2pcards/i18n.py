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


def _(message: str) -> str:
    return translations(_current).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of ``singular``/``plural`` for ``n`` in the current language
    (Polish: 1 karta, 2–4 karty, 5 kart, 22 karty)."""
    return translations(_current).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` as meant in ``context`` (a short English word can need two
    translations, e.g. a card's rank and a verb)."""
    return translations(_current).pgettext(context, message)


def npgettext(context: str, singular: str, plural: str, n: int) -> str:
    return translations(_current).npgettext(context, singular, plural, n)


def N_(message: str) -> str:
    """Marks a module-level text for the catalogs; translate it with :func:`_` where it is shown."""
    return message


def known(text: str, templates) -> str:
    """``text`` in the player's language if it is one of ``templates`` (fixed
    English texts marked with :func:`N_`, their ``{placeholders}`` filled in),
    else ``text`` as it is.

    For words that come from elsewhere in English: a reason another peer gave
    over the network, a note the audit keeps in its JSON. A text no template
    fits (free text from a peer, another version's wording) is shown as it came;
    the values taken from it are inserted, never formatted again. The value of
    a ``{reason}`` placeholder is looked up in ``templates`` in turn."""
    return _known(text, tuple(templates), 3)


def _known(text: str, templates: tuple, depth: int) -> str:
    if len(text) > _KNOWN_MAX or depth == 0:
        return text
    for template in templates:
        values = _fill(template, text)
        if values is not None:
            # A {reason} is words again ("peer rejected us: the table is full");
            # names, addresses and numbers stay as they came.
            if "reason" in values:
                values["reason"] = _known(values["reason"], templates, depth - 1)
            return _(template).format(**values)
    return text


_KNOWN_MAX = 500  # longer texts are no fixed reason; bounds the matching


@functools.lru_cache(maxsize=None)
def _pattern(template: str) -> re.Pattern:
    parts, seen = [], set()
    for literal, field, _spec, _conv in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if field is not None:
            parts.append(f"(?P={field})" if field in seen else f"(?P<{field}>.+?)")
            seen.add(field)
    return re.compile("".join(parts), re.DOTALL)


def _fill(template: str, text: str) -> dict | None:
    """The values that make ``template.format(**values) == text``, or None."""
    match = _pattern(template).fullmatch(text)
    return match.groupdict() if match else None


def answer(text: str) -> bool | None:
    """A typed yes (True) or no (False), or None if it is neither: the English
    words always, and the player's language's own ("tak"/"nie", "igen"/"nem")."""
    word = text.strip().lower()
    # Translators: the words that answer yes, space-separated, in lower case (English ones always work).
    if word in ("y", "yes", *_("y yes").lower().split()):
        return True
    # Translators: the words that answer no, space-separated, in lower case (English ones always work).
    if word in ("n", "no", *_("n no").lower().split()):
        return False
    return None
