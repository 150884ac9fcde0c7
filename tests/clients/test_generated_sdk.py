"""A typed Python client generated from openapi/openapi.json plays a whole match.

openapi-python-client (pinned in the report: 0.29.1) must read the committed document
without one warning; the client it writes is imported and used against a live server.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from api import create_app

from .support import ROOT

SPEC = ROOT / "openapi" / "openapi.json"
PACKAGE = "boneyard_sdk"
TARGET = 30  # a hand or two: the client's types and calls are checked, not a long game


@pytest.fixture
def sdk(tmp_path):
    config = tmp_path / "config.yaml"
    config.write_text("post_hooks: []\n")  # no formatter run: the client is generated, not styled
    generator = Path(sys.executable).with_name("openapi-python-client")
    done = subprocess.run(
        [
            str(generator),
            "generate",
            "--path",
            str(SPEC),
            "--meta",
            "none",
            "--output-path",
            str(tmp_path / PACKAGE),
            "--config",
            str(config),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "Warning" not in output and "Unable to" not in output, output
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(tmp_path))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]


@pytest.fixture
def server(tmp_path):
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'sdk.db'}", "RATELIMIT_ENABLED": False})
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}"
    finally:
        httpd.shutdown()
        thread.join(5)
        app.extensions["boneyard.store"].dispose()


def test_a_generated_client_plays_a_remote_seat_against_a_bot_to_the_end(sdk, server):
    from boneyard_sdk.api.matches import (
        get_v1_matches_match_id_audit,
        get_v1_matches_match_id_view,
        post_v1_matches,
        post_v1_matches_match_id_actions,
    )
    from boneyard_sdk.client import AuthenticatedClient, Client
    from boneyard_sdk.models import (
        AuditLog,
        CreatedMatch,
        DrawAction,
        KnockAction,
        LegalDraw,
        LegalKnock,
        LegalMuggins,
        LegalPlay,
        MatchCreate,
        MugginsAction,
        PlayAction,
        Problem,
        View,
    )

    # Each listed legal action is the action of the same type, to be sent as it is.
    as_action = {LegalPlay: PlayAction, LegalDraw: DrawAction, LegalKnock: KnockAction, LegalMuggins: MugginsAction}

    anonymous = Client(base_url=server, raise_on_unexpected_status=True)
    created = post_v1_matches.sync(
        client=anonymous,
        body=MatchCreate.from_dict(
            {
                "preset": "all-fives",
                "rules": {"target": TARGET},
                "seats": [{"name": "Ann", "type": "remote"}, {"name": "Bot", "type": "bot", "level": "greedy"}],
            }
        ),
    )
    assert isinstance(created, CreatedMatch), created
    token = next(s.token for s in created.seats if s.seat == 0)
    seat = AuthenticatedClient(base_url=server, token=token, raise_on_unexpected_status=True)
    moves = 0
    while True:
        view = get_v1_matches_match_id_view.sync(created.id, client=seat)
        assert isinstance(view, View), view
        if view.status == "ended":
            break
        assert view.legal_actions, "a remote seat with nothing to do while the match is live"
        listed = view.legal_actions[0]
        result = post_v1_matches_match_id_actions.sync(
            created.id, client=seat, body=as_action[type(listed)].from_dict(listed.to_dict())
        )
        assert not isinstance(result, Problem), result
        moves += 1
        assert moves < 500
    assert view.winner in (0, 1) and max(view.scores) >= TARGET
    response = get_v1_matches_match_id_audit.sync_detailed(created.id, client=anonymous)
    audit = AuditLog.from_dict(response.parsed.to_dict())
    assert audit.events[-1].type_.value == "match_ended"
    # A match ends at a hand's end (a typed hand result) or mid-hand on a scoring play (the hands shown).
    assert (view.last_hand is not None and view.last_hand.hands) or view.hands, view
    assert audit.events[-1].scores == view.scores and audit.seq == len(audit.events)
