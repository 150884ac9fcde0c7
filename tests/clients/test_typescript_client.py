"""A TypeScript client generated from openapi/openapi.json type-checks and plays a match.

clients/typescript pins its tools in package-lock.json (openapi-typescript, openapi-fetch,
typescript, @types/node); ``npm ci`` installs them when node_modules is missing or older than
the lock. Each run generates the types from the committed document (they are never committed:
the document is their one source, and generating them takes a second, so a committed copy
could only drift), type-checks src/play.ts with ``tsc --strict``, compiles it and runs it with
node against a real gunicorn: one remote seat against a computer player, legal actions sent as
listed, until the end.

The program is written against the generated types only: no ``any``, no casts, no non-null
assertions (checked below), so a document that stops describing what the server sends, or a
listed legal action that is not a valid action body, fails the type check, not a reader.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest
import requests

from tests.npm_packages import npm as npm_in
from tests.npm_packages import npm_ci
from tests.servers import running_gunicorn

from .support import ROOT, node_binary

CLIENT = ROOT / "clients" / "typescript"
PROGRAM = CLIENT / "src" / "play.ts"
PLAY_JS = CLIENT / "dist" / "src" / "play.js"
# One match of each kind of game: a draw game, a block game, the scoring game with claims; short
# (a hand or two each): what is checked is the types and the protocol, not a long game.
MATCHES = [("standard-draw", 30), ("pagat-block", 30), ("muggins", 30)]

pytestmark = pytest.mark.skipif(
    "postgresql" in os.environ.get("DATABASE_URL", ""),
    reason="about the document, not the database: the SQLite pass runs it",
)


def npm(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return npm_in(CLIENT, *args, timeout=timeout)


@pytest.fixture(scope="session")
def typescript_client() -> None:
    """node_modules as package-lock.json pins it: ``npm ci`` only when missing or stale
    (tests/npm_packages.py), so the quick loop does not reinstall."""
    node_binary()
    npm_ci(CLIENT)


def tool(name: str, *args: str) -> subprocess.CompletedProcess:
    """A pinned tool from node_modules, run with node."""
    scripts = {
        "openapi-typescript": "node_modules/openapi-typescript/bin/cli.js",
        "tsc": "node_modules/typescript/bin/tsc",
    }
    return subprocess.run(
        [node_binary(), scripts[name], *args], check=False, cwd=CLIENT, capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="session")
def compiled(typescript_client) -> None:
    """Types generated from the committed document; the program type-checked with ``--strict``
    and compiled in one tsc run (``noEmitOnError``: no JavaScript unless every check passes)."""
    done = npm("run", "--silent", "generate")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "⚠" not in done.stderr and "warn" not in done.stderr.lower(), done.stderr
    shutil.rmtree(CLIENT / "dist", ignore_errors=True)
    built = tool("tsc", "-p", "tsconfig.json", "--strict", "--noEmitOnError")
    assert built.returncode == 0, built.stdout + built.stderr
    assert PLAY_JS.exists()


def test_the_program_uses_the_generated_types_without_escape_hatches():
    source = PROGRAM.read_text()
    code = re.sub(r"/\*.*?\*/|//[^\n]*", "", source, flags=re.DOTALL)  # comments may say anything
    assert 'from "../generated/openapi.js"' in code
    assert not re.search(r"\bany\b", code), "an `any` type"
    assert not re.search(r"\bas\s+(?!const\b)\w", code), "a type assertion (cast)"
    assert not re.search(r"(?<!\w)<\w+(\[[^\]]*\])*>\s*[\w(]", code), "an angle-bracket type assertion"
    assert not re.search(r"[\w)\]]!(?![=])", code), "a non-null assertion"
    assert "@ts-" not in source, "a suppressed type error"


def test_the_type_check_rejects_what_the_document_does_not_allow(compiled):
    """The check has teeth: an action the document does not list, a route it does not have and
    a view field read as the wrong type are compile errors."""
    probe = CLIENT / "generated" / f"probe-{os.getpid()}.ts"  # beside the generated types it imports
    probe.write_text(
        'import createClient from "openapi-fetch";\n'
        'import type { components, paths } from "./openapi.js";\n'
        'const client = createClient<paths>({ baseUrl: "http://127.0.0.1" });\n'
        'export async function wrong(view: components["schemas"]["View"]): Promise<void> {\n'
        '  await client.POST("/v1/matches/{match_id}/actions", {\n'
        '    params: { path: { match_id: "m" } }, body: { type: "fold" } });\n'
        '  await client.GET("/v1/matches/{match_id}/moves", { params: { path: { match_id: "m" } } });\n'
        "  const seq: string = view.seq;\n"
        "  void seq;\n"
        "}\n"
    )
    try:
        done = tool(
            "tsc",
            "--strict",
            "--noEmit",
            "--target",
            "ES2022",
            "--module",
            "NodeNext",
            "--moduleResolution",
            "NodeNext",
            "--types",
            "node",
            "--skipLibCheck",
            str(probe),
        )
    finally:
        probe.unlink()
    assert done.returncode != 0
    errors = [line for line in done.stdout.splitlines() if "error TS" in line]
    assert len(errors) == 3, done.stdout
    assert any('"pass"' in line for line in errors), errors
    assert any("/moves" in line for line in errors), errors
    assert any("seq" in line or "number" in line for line in errors), errors


def test_a_typescript_client_plays_each_kind_of_game_against_gunicorn(compiled, database_url, tmp_path):
    with running_gunicorn(database_url, tmp_path / "gunicorn.log", WEB_CONCURRENCY="1", RATELIMIT_ENABLED="false") as (
        base,
        log,
    ):
        for preset, target in MATCHES:
            done = subprocess.run(
                [node_binary(), str(PLAY_JS), base, preset, str(target)],
                check=False,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert done.returncode == 0, f"{preset}: {done.stderr}\n{log.read_text()[-2000:]}"
            played = json.loads(done.stdout)
            summary = requests.get(f"{base}/v1/matches/{played['match_id']}", timeout=10).json()
            assert summary["status"] == "ended" and summary["preset"] == preset
            assert (played["winner"], played["scores"]) == (summary["winner"], summary["scores"])
            assert max(summary["scores"]) >= target
            assert played["actions"] > 0 and played["last_event"] == "match_ended"
            assert played["events"] == played["audit_rows"] == summary["seq"]
