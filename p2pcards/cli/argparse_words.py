"""argparse's own words ("usage:", "options", "the following arguments are
required: ...") in the player's language.

argparse looks its words up through the ``gettext``/``ngettext`` of the
standard library's default domain, names it binds in its own module
(``argparse._``, ``argparse.ngettext``), when it formats help and errors.
Python ships no catalog for them, so we keep copies of the words a player
can meet in our own catalog (marked below, so ``tools/catalogs.py extract``
collects them) and :func:`install` points argparse's two names at ours.

The copies must be argparse's exact texts, ``%``-placeholders and all:
``tests/test_cli_language.py`` checks each against the running Python's
argparse, so a Python whose argparse words differ shows which copy to
update (until then that word stays English). Only the words our parser
can show are copied: not those of a parser built wrongly (a programmer's),
nor of features it does not use (``nargs=N``, ``FileType``, required groups).
"""

from __future__ import annotations

import argparse

from p2pcards import i18n
from p2pcards.i18n import N_

# Translators: argparse's words (Python's standard command-line parser) for
# p2pcards --help and its errors. Keep every %(name)s, %s and %r; "usage: "
# ends with a space.
WORDS = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
    N_("%(prog)s: error: %(message)s\n"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"),
    N_("not allowed with argument %s"),
    N_("ignored explicit argument %r"),
    N_("expected one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("invalid %(type)s value: %(value)r"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
)


def install() -> None:
    """argparse words its help and errors in the current language from now on
    (looked up when they are formatted, so set the language first)."""
    argparse._ = i18n._
    argparse.ngettext = i18n.ngettext
