"""Hostile-input fuzzing: shared kit (kit.py) and atheris harnesses; see README.md."""
