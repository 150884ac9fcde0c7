"""No module of ``api`` reaches into another's private names: a name with a leading
underscore is called or imported only in the module that defines it."""

from __future__ import annotations

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
