"""Keep the translation catalogs: ``python tools/catalogs.py extract|update|compile``.

extract  writes p2pcards/locale/p2pcards.pot from the source (every _(), N_(),
         ngettext(), pgettext() call)
update   merges the template into pl and hu .po files (new messages empty,
         gone ones dropped); translate the empty ones, then run the tests
         (tests/test_catalogs.py says what is missing)
compile  writes the .mo files (the build does this too, see setup.py)

A translator's workflow: extract, update, edit the .po files, compile.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "p2pcards" / "locale"
TEMPLATE = LOCALE / "p2pcards.pot"
TRANSLATED = ("pl", "hu")


def babel(*args: str) -> None:
    from babel.messages.frontend import CommandLineInterface

    CommandLineInterface().run(["pybabel", "-q", *args])


def extract() -> None:
    babel("extract", "-F", str(ROOT / "babel.cfg"), "-o", str(TEMPLATE), "--no-location",
          "--sort-output", "-c", "Translators:", "--project", "p2pcards", "--no-wrap",
          "-k", "N_", "-k", "ngettext:1,2", "-k", "pgettext:1c,2", "-k", "npgettext:1c,2,3",
          str(ROOT / "p2pcards"))


def update() -> None:
    for lang in TRANSLATED:
        po = LOCALE / lang / "LC_MESSAGES" / "p2pcards.po"
        if po.exists():
            babel("update", "-i", str(TEMPLATE), "-o", str(po), "-l", lang, "--no-wrap",
                  "--ignore-obsolete", "--no-fuzzy-matching")
        else:
            babel("init", "-i", str(TEMPLATE), "-o", str(po), "-l", lang, "--no-wrap")


def compile_catalogs(root: Path = ROOT) -> None:
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    for po in sorted((root / "p2pcards" / "locale").glob("*/LC_MESSAGES/p2pcards.po")):
        with po.open("rb") as f:
            catalog = read_po(f, locale=po.parent.parent.name)
        with po.with_suffix(".mo").open("wb") as f:
            write_mo(f, catalog)


if __name__ == "__main__":
    commands = {"extract": extract, "update": update, "compile": compile_catalogs}
    if len(sys.argv) != 2 or sys.argv[1] not in commands:
        sys.exit(__doc__)
    commands[sys.argv[1]]()
