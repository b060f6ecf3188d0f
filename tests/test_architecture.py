"""The package's import structure against the map in ``ARCHITECTURE.md``.

Every module of ``rulebook`` must be listed in the map's layer table; an
import (at module level or inside a function) may go to the module's own
layer or a lower one; upward imports only in the map's *Hooks*, inside the
named function (the layer contract of import-linter, written as a test).
Besides, no import circles, hooks aside, within a layer either.
"""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "rulebook"
MAP = ROOT / "ARCHITECTURE.md"


def _section(title):
    text = MAP.read_text()
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def _table_rows(section):
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and not set(cells[0]) <= set("-") and cells[0] not in (
                "layer", "module"):
            rows.append(cells)
    return rows


def layers():
    """``{module: layer rank}`` from the map (``rulebook`` is the package itself)."""
    out = {}
    for rank, (name, modules, *_) in enumerate(_table_rows(_section("Layers"))):
        for module in re.findall(r"`([\w.]+)`", modules):
            out[module] = (rank, name)
    return out


def hooks():
    """``{(module, function qualname, imported module)}`` from the map."""
    return {tuple(re.sub(r"`", "", cell) for cell in row[:3])
            for row in _table_rows(_section("Hooks"))}


def _module_name(path):
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) or "rulebook"


def modules():
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(name, known):
    while name not in known and "." in name:
        name = name.rsplit(".", 1)[0]
    return name if name in known else None


def imports():
    """``(module, enclosing function qualname or None, imported module)`` for
    every import of a ``rulebook`` module inside the package."""
    known = modules()
    out = []
    for module, path in known.items():
        # The package a relative import starts from ("" for rulebook itself).
        if path.name == "__init__.py":
            package = "" if module == "rulebook" else module
        else:
            package = module.rpartition(".")[0]
        tree = ast.parse(path.read_text())

        def visit(node, scope):
            for child in ast.iter_child_nodes(node):
                inner = scope
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    inner = f"{scope}.{child.name}" if scope else child.name
                    if isinstance(child, ast.ClassDef):
                        inner = (scope, child.name)  # classes are not function scopes
                if isinstance(child, ast.ImportFrom):
                    for target in _targets(child, package, known):
                        out.append((module, _function(inner), target))
                elif isinstance(child, ast.Import):
                    for alias in child.names:
                        if alias.name.startswith("rulebook"):
                            target = _resolve(_relative(alias.name), known)
                            out.append((module, _function(inner), target))
                visit(child, _scope_name(inner))

        visit(tree, None)
    return [(m, f, t) for m, f, t in out if t is not None and t != m]


def _scope_name(scope):
    if isinstance(scope, tuple):
        outer, name = scope
        return f"{outer}.{name}" if outer else name
    return scope


def _function(scope):
    # None at module or class level (both run at import), else the qualname.
    return None if scope is None or isinstance(scope, tuple) else scope


def _relative(name):
    return "rulebook" if name == "rulebook" else name.removeprefix("rulebook.")


def _targets(node, package, known):
    if node.level == 0:
        if not (node.module or "").startswith("rulebook"):
            return []
        base = _relative(node.module)
    else:
        parts = package.split(".") if package else []
        parts = parts[:len(parts) - node.level + 1]
        base = ".".join(parts + ([node.module] if node.module else []))
    if node.module:
        return [_resolve(base, known) if base else "rulebook"]
    return [_resolve(f"{base}.{alias.name}" if base else alias.name, known) or
            (base or "rulebook") for alias in node.names]


def test_every_module_is_on_the_map():
    mapped = layers()
    missing = sorted(set(modules()) - set(mapped))
    stale = sorted(set(mapped) - set(modules()))
    assert not missing, f"modules missing from ARCHITECTURE.md's layer table: {missing}"
    assert not stale, f"ARCHITECTURE.md lists modules that do not exist: {stale}"


def test_imports_go_down_the_layers_except_the_listed_hooks():
    rank, allowed = layers(), hooks()
    upward = []
    for module, function, target in imports():
        if rank[target][0] > rank[module][0] and (module, function, target) not in allowed:
            upward.append(f"{module} ({rank[module][1]}) imports {target} ({rank[target][1]})"
                          + (f" in {function}" if function else " at module level"))
    assert not upward, "imports against ARCHITECTURE.md's layers:\n" + "\n".join(upward)


def test_every_listed_hook_exists():
    found = set(imports())
    assert hooks() <= found, sorted(hooks() - found)


def test_no_import_circles():
    # Over every import but the hooks (a model or estimator showing itself
    # in a notebook reaches up on purpose, lazily; the layer test keeps
    # that to the listed methods): a circle is a strongly connected
    # component of more than one module.
    allowed, edges = hooks(), {}
    for module, function, target in imports():
        if (module, function, target) not in allowed:
            edges.setdefault(module, set()).add(target)
    assert _circles(edges) == []


def _circles(edges):
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def connect(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                connect(w)
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
                out.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            connect(v)
    return out


@pytest.mark.parametrize("edges, expected", [
    ({"a": {"b"}, "b": {"c"}}, []),
    ({"a": {"b"}, "b": {"a"}, "c": {"a"}}, [["a", "b"]]),
    ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, [["a", "b", "c"]]),
])
def test_circle_finder(edges, expected):
    assert _circles(edges) == expected


def test_the_import_scanner_sees_module_level_and_function_imports():
    found = set(imports())
    # One known import of each kind (module level; inside a method).
    assert ("boosting", None, "search") in found
    assert ("estimators", "_RuleBoosting.explore", "widgets") in found
