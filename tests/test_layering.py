"""No module of ``api`` reaches into another's private names: a name with a leading
underscore is called or imported only in the module that defines it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

API = Path(__file__).resolve().parents[1] / "api"
PRIVATE_CALL = re.compile(r"\b(\w+)\.(_[a-z]\w*)\s*\(")
PRIVATE_IMPORT = re.compile(r"^from\s+\S+\s+import\s+(\([^)]*\)|[^\n]*)", re.MULTILINE)


def test_no_module_calls_or_imports_another_modules_private_names():
    found = []
    for path in sorted(API.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        defined = set(re.findall(r"def (_\w+)\(", text))
        for receiver, name in PRIVATE_CALL.findall(text):
            if receiver not in ("self", "cls", "super") and name not in defined:
                found.append(f"{path.relative_to(API.parent)}: {receiver}.{name}(")
        for names in PRIVATE_IMPORT.findall(text):
            for name in re.findall(r"\b(_[a-z]\w*)\b", names):
                found.append(f"{path.relative_to(API.parent)}: imports {name}")
    assert not found, "\n".join(found)


def imports_of(path: Path, module: str) -> set[str]:
    """Every ``api`` module ``path`` imports, wherever the import is written (in a function, under
    TYPE_CHECKING: a circle that only a deferred import keeps from failing is still a circle)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            for alias in node.names:  # `from pkg import module` imports the module itself
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base)
    return {name for name in found if name in MODULES and name != module}


def module_name(path: Path) -> str:
    parts = path.relative_to(API.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in API.rglob("*.py")}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_circles_between_modules():
    graph = {name: imports_of(path, name) for name, path in MODULES.items()}
    assert graph["api.services.lobby"] >= {"api.services.creating", "api.services.flow"}  # the walk sees imports
    assert circles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]  # and would see a circle
    assert circles(graph) == []
