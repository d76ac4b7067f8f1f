"""The package's dependency rule (stated in ``p2pcards/__init__.py``), checked
over the import graph of every module under ``p2pcards/``.

Every ``import`` counts: at module level, inside functions, relative ones,
and ``importlib.import_module("...")`` with a literal name.
"""

from __future__ import annotations

import ast
from pathlib import Path

import p2pcards

PACKAGE = Path(p2pcards.__file__).parent

# Lowest first; a module may import its own layer or any layer below it.
# Mirrors the rule in p2pcards/__init__.py.
LAYERS: list[tuple[str, ...]] = [
    ("p2pcards", "p2pcards.cards", "p2pcards.files", "p2pcards.i18n", "p2pcards.identity", "p2pcards.limits"),
    ("p2pcards.games", "p2pcards.rules", "p2pcards.mental", "p2pcards.net"),
    ("p2pcards.bots", "p2pcards.protocol"),
    ("p2pcards.audit", "p2pcards.peer"),
    ("p2pcards.ui",),
    ("p2pcards.testing",),
    ("p2pcards.cli", "p2pcards.__main__"),
]

# Test-only machinery: only the command line (selfplay, the bot seat) plugs it in.
TESTING = "p2pcards.testing"
MAY_IMPORT_TESTING = ("p2pcards.cli", TESTING)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _within(name: str, unit: str) -> bool:
    return name == unit or name.startswith(unit + ".")


def layer_of(name: str) -> tuple[int, str] | None:
    """(layer index, the unit of LAYERS it falls in), longest match first."""
    best = None
    for index, units in enumerate(LAYERS):
        for unit in units:
            if _within(name, unit) and (best is None or len(unit) > len(best[1])):
                best = (index, unit)
    return best


def _known(name: str, modules) -> str | None:
    """The module ``name`` means: itself, or the module it is an attribute of."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(name: str, path: Path, modules) -> set[str]:
    """The p2pcards modules that module ``name`` imports, anywhere in it."""
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            # ``from a import b`` imports the module a.b when there is one.
            targets = [f"{source}.{alias.name}" if f"{source}.{alias.name}" in modules else source
                       for alias in node.names]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "import_module" and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            targets = [node.args[0].value]
        for target in targets:
            if _within(target, "p2pcards"):
                module = _known(target, modules)
                if module is not None and module != name:
                    found.add(module)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = all_modules()
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def test_every_module_has_a_layer():
    unplaced = [name for name in all_modules() if layer_of(name) is None]
    assert not unplaced, f"modules in no layer of LAYERS (place them there and in p2pcards/__init__.py): {unplaced}"


def test_imports_go_down_the_layers():
    upward = []
    for source, targets in import_graph().items():
        for target in sorted(targets):
            (low, low_unit), (high, high_unit) = layer_of(target), layer_of(source)
            if low > high:
                upward.append(f"{source} ({high_unit}) imports {target} ({low_unit})")
    assert not upward, "imports against the dependency rule:\n  " + "\n  ".join(sorted(upward))


def test_only_the_command_line_imports_the_testing_machinery():
    wrong = [f"{source} imports {target}" for source, targets in import_graph().items()
             for target in sorted(targets)
             if _within(target, TESTING) and not any(_within(source, unit) for unit in MAY_IMPORT_TESTING)]
    assert not wrong, "test-only code imported outside the command line:\n  " + "\n  ".join(sorted(wrong))


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles():
    graph = import_graph()
    problems = []
    for component in cycles(graph):
        members = set(component)
        edges = [f"{a} -> {b}" for a in component for b in sorted(graph[a] & members)]
        problems.append("cycle among " + ", ".join(component) + ":\n    " + "\n    ".join(edges))
    assert not problems, "\n  ".join(problems)


def test_the_checker_sees_function_level_and_relative_imports(tmp_path):
    """The graph builder itself: a cycle hidden in a function and a relative
    import are both found (else the tests above could pass on a blind graph)."""
    graph = import_graph()
    # net/ uses relative imports throughout; the audit imports inside functions.
    assert "p2pcards.net.errors" in graph["p2pcards.net.framing"]
    assert "p2pcards.protocol.machine" in graph["p2pcards.audit"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert layer_of("p2pcards.cli.subcommands") == (len(LAYERS) - 1, "p2pcards.cli")
    assert layer_of("p2pcards.cards") == (0, "p2pcards.cards")


def test_one_walk_through_the_log():
    """Only the log walker (protocol/walk.py) builds a table machine: the
    driver, the audit, the replay and the spectator all take entries in
    through it, so a Violation is met in one way."""
    builders = []
    for name, path in all_modules().items():
        if name in ("p2pcards.protocol.walk", "p2pcards.protocol.machine"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Call):
                func = node.func
                called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                if called in ("new_machine", "TableMachine"):
                    builders.append(f"{name} line {node.lineno}")
    assert not builders, "table machines built outside protocol/walk.py:\n  " + "\n  ".join(builders)


def _readme_map() -> set[str]:
    """The files the README's map of the code names, as paths under the repository."""
    readme = (Path(p2pcards.__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    block = readme.split("\np2pcards/ ", 1)[1].split("\n```", 1)[0]
    listed, folders = set(), []  # folders: (indent, path) of the enclosing folders
    for line in ("p2pcards/ " + block).splitlines():
        name = line.strip().split(" ", 1)[0]
        if not name:
            continue
        indent = len(line) - len(line.lstrip())
        while folders and folders[-1][0] >= indent:
            folders.pop()
        path = "/".join([f for _, f in folders] + [name.rstrip("/")])
        if name.endswith("/"):
            folders.append((indent, name.rstrip("/")))
        listed.add(path)
    return listed


def test_the_readme_maps_every_module_one_line_each():
    root = Path(p2pcards.__file__).parent.parent
    modules = {p.relative_to(root).as_posix() for p in (root / "p2pcards").rglob("*.py")}
    listed = _readme_map()
    # a folder's one line may stand for its modules (rules/__init__.py is listed as such)
    missing = {m for m in modules if m not in listed and not m.endswith("/__init__.py")}
    missing |= {m for m in modules if m.endswith("/__init__.py") and m not in listed
                and m.rsplit("/", 1)[0] not in listed}
    assert not missing, f"modules the README's map of the code leaves out: {sorted(missing)}"
    gone = {p for p in listed if p.endswith(".py") and p.startswith("p2pcards/") and p not in modules}
    assert not gone, f"the README's map names modules that are not there: {sorted(gone)}"


# The rules stay in games/: above it, code asks the engine (``Game.layout``,
# ``Game.match_points``, ``Game.verbs``, ...) and never picks what to do by a
# game's name. (The bots, which are per-game policies, are not in this list.)
NO_GAME_NAMES = ("p2pcards.ui", "p2pcards.cli", "p2pcards.protocol", "p2pcards.audit", "p2pcards.peer")


def game_name_uses(source: str, game_ids) -> list[str]:
    """Where ``source`` compares with a game's id (``game.id == "bura"``,
    ``game_id in ("kanasta", "kanaszta")``, a ``case "bura":``) or keys a
    dict by one (``{"bura": ...}``, ``{("kanasta", "clean"): ...}``)."""
    def named(node) -> bool:
        if isinstance(node, ast.Constant):
            return node.value in game_ids
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(named(e) for e in node.elts)
        return False

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and any(named(e) for e in [node.left, *node.comparators]):
            found.append((node.lineno, "compares with a game's name"))
        elif isinstance(node, ast.Dict) and any(k is not None and named(k) for k in node.keys):
            found.append((node.lineno, "a dict keyed by game names"))
        elif isinstance(node, ast.MatchValue) and named(node.value):
            found.append((node.lineno, "a case of a game's name"))
    return [f"line {line}: {what}" for line, what in sorted(found)]


def test_no_game_is_named_above_the_engines():
    from p2pcards.games import GAME_IDS

    problems = [f"{name} {use}" for name, path in all_modules().items()
                if any(_within(name, unit) for unit in NO_GAME_NAMES)
                for use in game_name_uses(path.read_text(encoding="utf-8"), GAME_IDS)]
    assert not problems, ("rules chosen by a game's name outside games/ (make it class data or a hook "
                          "of the engine):\n  " + "\n  ".join(problems))


def test_the_checker_sees_every_way_of_naming_a_game():
    ids = ("kanasta", "kanaszta", "bura")
    leaks = ['if game.id == "bura": pass', 'if game_id not in ("kanasta", "kanaszta"): pass',
             'x = "bura" != session.game.id', 'AREAS = {"bura": 1, "kanasta": 2}', 'W = {("kanasta", "clean"): 1}',
             'match game.id:\n    case "bura":\n        pass']
    for leak in leaks:
        assert game_name_uses(leak, ids), leak
    fine = ['print("kanasta is a game")', 'if game.layout == "melds": pass', 'd = {"melds": 1}',
            'get_game("bura")', 'ok = "p2pcards play bura" == text']
    assert [src for src in fine if game_name_uses(src, ids)] == []
