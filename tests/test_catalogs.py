"""The translation catalogs are complete and consistent with the source.

Every message the code marks (``_``, ``N_``, ``ngettext``, ``pgettext``…) has
a Polish and a Hungarian translation, no catalog keeps a message the code no
longer has, and every translation uses exactly the placeholders of the
English, so a ``.format()`` never raises and never drops a number.
"""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.pofile import read_po

from p2pcards import i18n

ROOT = Path(__file__).resolve().parent.parent
KEYWORDS = {**DEFAULT_KEYWORDS, "N_": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2),
            "npgettext": ((1, "c"), 2, 3)}


def _key(message) -> tuple[str | None, str]:
    return message.context, message.id if isinstance(message.id, str) else message.id[0]


@pytest.fixture(scope="module")
def source_messages() -> dict:
    found = {}
    for filename, _line, message, _comments, context in extract_from_dir(
            str(ROOT / "p2pcards"), method_map=[("**.py", "python")], keywords=KEYWORDS):
        ids = (message,) if isinstance(message, str) else tuple(m for m in message if m)
        found.setdefault((context, ids[0]), (ids, filename))
    return found


def _catalog(lang: str):
    with (i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "p2pcards.po").open("rb") as f:
        return read_po(f, locale=lang)


def _fields(text: str) -> set[str]:
    return {name for _lit, name, _spec, _conv in string.Formatter().parse(text) if name is not None}


@pytest.mark.parametrize("lang", ["pl", "hu"])
def test_every_message_is_translated(lang, source_messages):
    catalog = _catalog(lang)
    have = {_key(m): m for m in catalog if m.id}
    missing = sorted(k[1] for k in source_messages if k not in have)
    assert not missing, f"{len(missing)} messages not in the {lang} catalog (run tools/catalogs.py update): {missing[:10]}"
    untranslated = sorted(k[1] for k, m in have.items() if k in source_messages and (
        m.fuzzy or not all(m.string if isinstance(m.string, tuple) else (m.string,))))
    assert not untranslated, f"{len(untranslated)} {lang} messages untranslated or fuzzy: {untranslated[:10]}"


@pytest.mark.parametrize("lang", ["pl", "hu"])
def test_no_catalog_keeps_a_message_the_code_no_longer_has(lang, source_messages):
    unused = sorted(k[1] for k in (_key(m) for m in _catalog(lang) if m.id) if k not in source_messages)
    assert not unused, f"{len(unused)} {lang} messages the code no longer uses: {unused[:10]}"


@pytest.mark.parametrize("lang", ["pl", "hu"])
def test_translations_use_the_placeholders_of_the_english(lang, source_messages):
    wrong = []
    for message in _catalog(lang):
        if not message.id or _key(message) not in source_messages:
            continue
        english = (message.id,) if isinstance(message.id, str) else message.id
        forms = (message.string,) if isinstance(message.string, str) else message.string
        wanted = set().union(*map(_fields, english))
        used = [_fields(form) for form in forms]
        # A plural form may leave the number out ("one card" / "jedna karta"),
        # but no form may invent a placeholder and the forms together use them all.
        if any(u - wanted for u in used) or (forms and set().union(*used) != wanted and len(forms) == 1):
            wrong.append((message.id, message.string))
        for form in forms:
            try:
                form.format(**{name: 1 for name in wanted})
            except (ValueError, IndexError, KeyError) as e:
                wrong.append((message.id, f"{form!r}: {e}"))
    assert not wrong, f"{lang} translations with other placeholders than the English: {wrong[:5]}"


def test_polish_has_three_plural_forms_and_hungarian_its_own_rule():
    assert _catalog("pl").num_plurals == 3
    assert _catalog("hu").num_plurals == 2


@pytest.mark.parametrize("environ, flag, expected", [
    ({}, None, "en"),
    ({"LANG": "pl_PL.UTF-8"}, None, "pl"),
    ({"LC_MESSAGES": "hu_HU.UTF-8", "LANG": "en_US.UTF-8"}, None, "hu"),
    ({"LC_ALL": "C", "LANG": "pl_PL.UTF-8"}, None, "en"),
    ({"LANGUAGE": "hu:en", "LANG": "pl_PL.UTF-8"}, None, "hu"),
    ({"LANG": "de_DE.UTF-8"}, None, "en"),
    ({"LANG": "de_DE.UTF-8", "P2PCARDS_LANG": "pl"}, None, "pl"),
    ({"P2PCARDS_LANG": "pl"}, "hu", "hu"),
])
def test_the_language_follows_the_flag_then_p2pcards_lang_then_the_locale(environ, flag, expected):
    assert i18n.choose_language(flag, environ) == expected


def test_an_unknown_language_is_refused_in_words():
    with pytest.raises(i18n.UnknownLanguage, match="unknown language 'de'"):
        i18n.choose_language("de", {})
