"""The web table's ES modules: a graph without cycles, same-origin only, loaded under the page's CSP.

The page has no build step, so the browser itself resolves ``api/web/static/*.js``: a module
that imports something missing, from another origin, or in a circle is caught here, and the
page is loaded once in Chromium with its Content-Security-Policy *enforced* (the other browser
tests bypass it so that Playwright's string predicates may use eval).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import requests

from api.web import STATIC_DIR

from .conftest import DESKTOP

MODULES = sorted(path.name for path in STATIC_DIR.glob("*.js"))
# static imports and re-exports at a statement's start: "import './x.js'", "import {a} from", "export {a} from"
STATIC_IMPORT = re.compile(r"""^\s*(?:import\s*|(?:import|export)\b[^;"'`]*?\bfrom\s*)["']([^"']+)["']""", re.MULTILINE)
DYNAMIC_IMPORT = re.compile(r"\bimport\s*\(")
SAME_FOLDER_MODULE = re.compile(r"^\./[a-z][a-z0-9-]*\.js$")


def imports_of(name: str) -> list[str]:
    return STATIC_IMPORT.findall((STATIC_DIR / name).read_text(encoding="utf-8"))


#: Each page and its one script, the entry of its module graph.
PAGES = {"index.html": "app.js", "tournament.html": "tournament.js"}


def module_graph() -> dict[str, list[str]]:
    graph: dict[str, list[str]] = {}
    for name in MODULES:
        text = (STATIC_DIR / name).read_text(encoding="utf-8")
        assert not DYNAMIC_IMPORT.search(text), f"{name}: a dynamic import() escapes this check"
        specifiers = imports_of(name)
        bad = [spec for spec in specifiers if not SAME_FOLDER_MODULE.match(spec) or spec[2:] not in MODULES]
        assert not bad, f"{name} imports {bad}: only ./<module>.js files of api/web/static"
        graph[name] = [spec[2:] for spec in specifiers]
    return graph


def reached_from(entry: str, graph: dict[str, list[str]]) -> set[str]:
    """Every module ``entry`` loads, itself included; fails on an import cycle."""
    reached: set[str] = set()
    done: set[str] = set()

    def visit(name: str, trail: tuple[str, ...]) -> None:
        assert name not in trail, "import cycle: " + " -> ".join((*trail[trail.index(name) :], name))
        if name in done:
            return
        reached.add(name)
        for imported in graph[name]:
            visit(imported, (*trail, name))
        done.add(name)

    visit(entry, ())
    return reached


def test_modules_import_only_each_other_in_one_direction():
    assert "app.js" in MODULES and len(MODULES) > 1
    graph = module_graph()
    # every module is reachable from a page's entry, and no import leads back to where it started
    reached = set().union(*(reached_from(entry, graph) for entry in PAGES.values()))
    assert reached == set(MODULES), f"modules no page loads: {sorted(set(MODULES) - reached)}"


def test_each_page_names_its_entry_as_its_one_script_and_preloads_every_other_module_it_loads():
    graph = module_graph()
    for page_name, entry in PAGES.items():
        page = (STATIC_DIR / page_name).read_text(encoding="utf-8")
        assert re.findall(r"<script\b[^>]*>", page) == [f'<script type="module" src="{entry}">'], page_name
        preloaded = re.findall(r'<link rel="modulepreload" href="([^"]+)">', page)
        assert sorted(preloaded) == sorted(reached_from(entry, graph) - {entry}), page_name


def test_every_module_loads_same_origin_under_the_enforced_csp_without_an_error(browser, live_server):
    # imported here, not at the top: the two tests above need no browser
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    origin = "{0.scheme}://{0.netloc}".format(urlsplit(live_server))
    context = browser.new_context(viewport=DESKTOP, base_url=live_server)  # CSP enforced
    context.set_default_timeout(10_000)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if msg.type in ("error", "warning") else None)
        scripts: dict[str, tuple[int, str]] = {}
        others: list[str] = []

        def seen(response) -> None:
            if response.request.resource_type == "script":
                scripts[response.url] = (response.status, response.headers.get("content-type", ""))
            else:
                others.append(response.url)

        page.on("response", seen)
        first = page.goto("/play")
        assert "script-src 'self'" in first.headers["content-security-policy"]
        try:
            page.wait_for_selector("#setup:not([hidden])")
        except PlaywrightTimeout:
            raise AssertionError(f"the page never showed its form; the browser said: {errors}") from None
        # setup.js filled the menus: the whole graph was fetched, parsed and run
        assert page.locator("#seat-list li").count() == 2
        # ... with the API's own lists (GET /v1/presets, fetched under the CSP's connect-src)
        offered = requests.get(f"{live_server}/v1/presets", timeout=10).json()
        menu = page.eval_on_selector_all("#preset option", "els => els.map((o) => [o.value, o.textContent])")
        assert menu == [[p["name"], p["title"]] for p in offered["presets"]] and len(menu) > 1
        assert page.eval_on_selector("#preset", "el => el.value") == offered["default_preset"] == "standard-draw"
        # the state object is read-only outside state.js: a stray assignment throws
        outcome = page.evaluate("""import(new URL("state.js", document.baseURI).href).then((m) => {
            try { m.state.view = null; return "assigned"; } catch (e) { return e.name; } })""")
        assert outcome == "TypeError"

        loaded = sorted(reached_from("app.js", module_graph()))
        assert sorted(scripts) == [f"{origin}/play/{name}" for name in loaded]
        for url, (status, content_type) in scripts.items():
            assert status in (200, 304) and content_type.startswith("text/javascript"), (url, status, content_type)
        assert all(url.startswith(origin + "/") for url in others), others
        assert errors == []
    finally:
        context.close()
    for name in MODULES:
        response = requests.get(f"{live_server}/play/{name}", timeout=10)
        assert response.status_code == 200 and response.headers["Content-Type"].startswith("text/javascript")
        assert response.headers["X-Content-Type-Options"] == "nosniff"
