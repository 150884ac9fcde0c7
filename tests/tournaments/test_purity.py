"""The tournament core is pure: the standard library, networkx's matching and itself."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import api.tournaments

ALLOWED = sys.stdlib_module_names | {"__future__", "networkx"}


def test_the_core_imports_the_standard_library_networkx_and_itself_only():
    found = {}
    for path in Path(api.tournaments.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                found[node.module or ""] = path.name
            elif isinstance(node, ast.Import):
                found.update({alias.name: path.name for alias in node.names})
    assert "networkx" in found  # the walk sees the imports
    assert {name: where for name, where in found.items() if name.split(".")[0] not in ALLOWED} == {}
