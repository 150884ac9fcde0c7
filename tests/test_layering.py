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


# --- one bootstrap: the use cases are wired in api/bootstrap.py and nowhere else ------------------
ROOT = API.parent
#: The classes ``api.bootstrap`` makes from the configuration. A dependency it takes ready-made
#: (a clock, an offload, a reply floor, a resolver, a sender) may be made by its caller.
WIRED = {"MessageBus", "MatchFlow", "SnapshotCache", "Waiter", "WorkLimits", "Courier", "WebhookSettings"}
#: (class, file): a class's own unit tests, which build it bare to test it alone.
BUILT_BARE = {("Waiter", "tests/api/test_waiting_fanout.py")}


def python_sources() -> list[Path]:
    """Every Python file of api/, bench/, tests/ and scripts/ (its scripts without a suffix too)."""
    found = [path for folder in ("api", "bench", "tests") for path in sorted((ROOT / folder).rglob("*.py"))]
    for path in sorted((ROOT / "scripts").iterdir()):
        if path.is_file() and (path.suffix == ".py" or "python" in path.read_text(encoding="utf-8").split("\n")[0]):
            found.append(path)
    return found


def constructions(source: str) -> list[tuple[str, int]]:
    """``(class, line)`` of each call of a wired class in ``source``: ``MatchFlow(...)`` or
    ``flow.MatchFlow(...)`` (a classmethod such as ``ReplyFloor.from_millis`` is no such call)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name in WIRED:
                found.append((name, node.lineno))
    return found


def test_the_use_cases_are_wired_in_the_bootstrap_module_only():
    assert constructions("bus = bus_module.MessageBus({}, MatchFlow(store))") == [("MessageBus", 1), ("MatchFlow", 1)]
    made_in_bootstrap = {name for name, _ in constructions((API / "bootstrap.py").read_text(encoding="utf-8"))}
    assert made_in_bootstrap == WIRED  # the walk sees them where they are made
    sources = python_sources()
    assert ROOT / "scripts" / "check-contract" in sources and ROOT / "bench" / "api_hands.py" in sources
    elsewhere = [
        f"{path.relative_to(ROOT)}:{line}: {name}("
        for path in sources
        if path != API / "bootstrap.py"
        for name, line in constructions(path.read_text(encoding="utf-8"))
        if (name, str(path.relative_to(ROOT))) not in BUILT_BARE
    ]
    assert not elsewhere, "made outside api/bootstrap.py (call api.bootstrap.bootstrap):\n" + "\n".join(elsewhere)


def test_bootstrap_knows_the_store_and_the_services_and_nothing_of_http():
    imported = imports_of(API / "bootstrap.py", "api.bootstrap")
    assert "api.services.bus" in imported  # the walk sees its imports
    assert not {name for name in imported if name.startswith(("api.http", "api.web", "api.app"))}


def test_outside_the_services_a_use_case_is_reached_through_the_bus_only():
    """No handler is called or imported by name outside ``api.services`` (the bus gives each
    its dependencies): the HTTP views, the CLI, the runners, the benches and the tests send commands."""
    handlers = re.compile(r"\b\w+_handler\b")
    assert "act_handler" in handlers.findall((API / "services" / "bus.py").read_text(encoding="utf-8"))
    found = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in python_sources()
        if API / "services" not in path.parents and path not in (API / "bootstrap.py", Path(__file__))
        for name in sorted(set(handlers.findall(path.read_text(encoding="utf-8"))))
        if name not in ("register_error_handler", "error_handler")
    ]
    assert not found, "\n".join(found)


def test_the_handlers_tests_build_no_app():
    """tests/services/ drives the use cases through the bus that ``api.bootstrap`` wires (on the
    memory store, with a fake clock): no Flask app, no HTTP."""
    found = []
    for path in sorted((ROOT / "tests" / "services").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
            found += [
                f"{path.name}: {name}"
                for name in names
                if name.split(".")[0] == "flask" or name.startswith(("api.app", "api.http", "api.create_app"))
            ]
    assert not found, "\n".join(found)


# --- boneyard verify: a shell over the fairness check, with no server ------------------------------
def reached_from(graph: dict[str, set[str]], start: str) -> set[str]:
    """Every module ``start`` imports, directly or through others."""
    reached, todo = set(), [start]
    while todo:
        for target in graph[todo.pop()] - reached:
            reached.add(target)
            todo.append(target)
    return reached


def test_boneyard_verify_reaches_the_fairness_check_and_no_server():
    """``boneyard verify`` (api/cli.py, api/verify.py) runs the fairness check's own code offline:
    it imports nothing of the HTTP layer, the web page, the app or its wiring, directly or not;
    and it is a shell on top, as the HTTP views are: no other module imports it."""
    graph = {name: imports_of(path, name) for name, path in MODULES.items()}
    reached = reached_from(graph, "api.cli")
    assert {"api.verify", "api.services.fairness", "api.bots.audit", "api.rules.audit", "api.store.chain"} <= reached
    server = ("api.http", "api.web", "api.app", "api.bootstrap", "api.serving", "api.portal_cli", "api.webhook_cli")
    assert sorted(name for name in reached if name.startswith(server)) == []
    assert reached_from(graph, "api.http.matches") >= {"api.http.callers"}  # the walk follows imports through
    importers = sorted(name for name, imported in graph.items() if imported & {"api.cli", "api.verify"})
    assert importers == ["api.cli"]


# --- metrics: counted by the use cases and the HTTP edge, never by the pure core ------------------
def test_the_rules_and_the_bots_import_no_metrics():
    """``api.rules`` and ``api.bots`` stay pure: what they decide is counted by the services that
    call them (``api.metrics``), and nothing of prometheus-client reaches them, directly or not."""
    graph = {name: imports_of(path, name) for name, path in MODULES.items()}
    assert "api.metrics" in graph["api.services.acting"]  # the walk sees the services' counting
    core = [name for name in MODULES if name.startswith(("api.rules", "api.bots"))]
    assert len(core) > 20
    found = sorted(name for name in core if "api.metrics" in reached_from(graph, name) | {name})
    assert found == []
    third_party = sorted(
        str(MODULES[name].relative_to(ROOT))
        for name in core
        if "prometheus_client" in MODULES[name].read_text(encoding="utf-8")
    )
    assert third_party == []


# --- records: pure, beside the rules -------------------------------------------------------------
def test_the_records_package_is_pure_and_its_text_module_stands_alone():
    """``api.records`` (docs/records.md) reads and writes records beside the rules: it imports the
    rules engine and nothing of the store, the services or the HTTP layer, and its text module and
    model use the standard library alone (another program could take them as they are)."""
    graph = {name: imports_of(path, name) for name, path in MODULES.items()}
    package = [name for name in MODULES if name.startswith("api.records")]
    assert {"api.records.text", "api.records.model", "api.records.replay"} <= set(package)
    outside = sorted(
        f"{name} -> {target}"
        for name in package
        for target in reached_from(graph, name)
        if not target.startswith(("api.records", "api.rules"))
    )
    assert outside == []
    for name in ("api.records.text", "api.records.model"):
        assert reached_from(graph, name) <= {"api.records.model"}, name
        third_party = {
            alias
            for node in ast.walk(ast.parse(MODULES[name].read_text(encoding="utf-8")))
            if isinstance(node, ast.Import | ast.ImportFrom) and not getattr(node, "level", 0)
            for alias in ([a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""])
        }
        assert third_party <= {"__future__", "json", "re", "collections.abc", "dataclasses", "typing"}, name
