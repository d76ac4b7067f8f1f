"""Compiles the translation catalogs (.po → .mo) whenever the package is built
or installed, editable installs included; everything else is in pyproject.toml."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class build_py_with_catalogs(build_py):
    def run(self):
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        for po in sorted(Path(__file__).parent.glob("p2pcards/locale/*/LC_MESSAGES/p2pcards.po")):
            with po.open("rb") as f:
                catalog = read_po(f, locale=po.parent.parent.name)
            with po.with_suffix(".mo").open("wb") as f:
                write_mo(f, catalog)
        super().run()


setup(cmdclass={"build_py": build_py_with_catalogs})
