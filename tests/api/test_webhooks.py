"""/v1/portal/webhooks over HTTP and the operator's commands: registration checked as
problem+json, each portal sees and replays only its own, the CLI end to end to a real receiver."""

from __future__ import annotations

import re

import pytest

from api.portal_cli import portal_cli
from api.webhook_cli import webhooks_cli
from tests.webhook_receiver import running_receiver, verify

from .helpers import TWO_REMOTE, assert_problem, create, new_portal, portal_client

PUBLIC_URL = "https://93.184.216.34/hooks"  # an address literal: nothing to resolve


@pytest.fixture
def two(app):
    return portal_client(app, new_portal(app, "alpha")), portal_client(app, new_portal(app, "beta"))


def register(client, body, status=201):
    response = client.post("/v1/portal/webhooks", json=body)
    assert response.status_code == status, response.get_json()
    return response.get_json()


def test_registration_is_checked_and_answers_the_secret_once(app, two):
    alpha, _ = two
    keyless = app.test_client()
    assert_problem(keyless.post("/v1/portal/webhooks", json={"url": PUBLIC_URL}), 401, "portal_key_required")
    for url, reason in [
        ("ftp://93.184.216.34/x", "scheme"),
        ("http://127.0.0.1:8000/x", "private_address"),
        ("http://169.254.169.254/latest/meta-data/", "private_address"),
        ("https://u:p@93.184.216.34/x", "credentials"),
        ("not a url", "malformed"),
    ]:
        body = assert_problem(alpha.post("/v1/portal/webhooks", json={"url": url}), 422, "invalid_webhook_url")
        assert body["reason"] == reason, url
    body = assert_problem(
        alpha.post("/v1/portal/webhooks", json={"url": PUBLIC_URL, "events": ["match.ended", "match.won"]}),
        422,
        "invalid_webhook_events",
    )
    assert body["unknown"] == ["match.won"]
    assert_problem(alpha.post("/v1/portal/webhooks", json={"events": ["match.ended"]}), 422, "invalid_request")

    made = register(alpha, {"url": PUBLIC_URL, "events": ["match.ended", "turn.started"]})
    assert re.fullmatch(r"whsec_[A-Za-z0-9+/]{43}=", made["secret"])
    assert made["events"] == ["match.ended", "turn.started"] and made["url"] == PUBLIC_URL
    everything = register(alpha, {"url": PUBLIC_URL})
    assert len(everything["events"]) == 10  # six of a match, four of a tournament
    listed = alpha.get("/v1/portal/webhooks").get_json()["items"]
    assert [h["id"] for h in listed] == [made["id"], everything["id"]]
    assert all("secret" not in h for h in listed)
    one = alpha.get(f"/v1/portal/webhooks/{made['id']}")
    assert one.status_code == 200 and one.get_json() == listed[0]
    rotated = alpha.post(f"/v1/portal/webhooks/{made['id']}/secret")
    assert rotated.status_code == 200 and rotated.get_json()["secret"] not in (made["secret"], None)
    assert rotated.get_json()["previous_secret_until"] is not None  # the server's overlap (a day)
    assert alpha.get(f"/v1/portal/webhooks/{made['id']}").get_json()["previous_secret_until"] is not None
    at_once = alpha.post(f"/v1/portal/webhooks/{made['id']}/secret", json={"overlap_seconds": 0})
    assert at_once.status_code == 200 and at_once.get_json()["previous_secret_until"] is None
    for wrong in (-1, 7 * 24 * 3600 + 1, 1.5):
        refused = alpha.post(f"/v1/portal/webhooks/{made['id']}/secret", json={"overlap_seconds": wrong})
        assert_problem(refused, 422, "invalid_request")
    assert_problem(alpha.get("/v1/portal/webhooks/not-an-id"), 422, "invalid_request")
    assert alpha.delete(f"/v1/portal/webhooks/{made['id']}").status_code == 204
    assert_problem(alpha.get(f"/v1/portal/webhooks/{made['id']}"), 404, "unknown_webhook")
    assert_problem(alpha.delete(f"/v1/portal/webhooks/{made['id']}"), 404, "unknown_webhook")


def test_a_portal_cannot_see_or_replay_another_portals_webhooks(two):
    alpha, beta = two
    hook = register(alpha, {"url": PUBLIC_URL, "events": ["match.created"]})
    create(alpha, TWO_REMOTE)
    create(beta, TWO_REMOTE)  # beta's match: nothing for alpha's endpoint
    page = alpha.get(f"/v1/portal/webhooks/{hook['id']}/deliveries")
    assert page.status_code == 200
    (delivery,) = page.get_json()["items"]
    assert delivery["type"] == "match.created" and delivery["status"] == "pending" and delivery["log"] == []
    assert delivery["payload"]["id"] == delivery["id"]
    base = f"/v1/portal/webhooks/{hook['id']}"
    assert beta.get("/v1/portal/webhooks").get_json()["items"] == []
    assert_problem(beta.get(base), 404, "unknown_webhook")
    assert_problem(beta.get(f"{base}/deliveries"), 404, "unknown_webhook")
    assert_problem(beta.post(f"{base}/deliveries/{delivery['id']}/replay"), 404, "unknown_webhook")
    assert_problem(beta.post(f"{base}/secret"), 404, "unknown_webhook")
    assert_problem(beta.delete(base), 404, "unknown_webhook")
    mine = register(beta, {"url": PUBLIC_URL})
    assert_problem(
        beta.post(f"/v1/portal/webhooks/{mine['id']}/deliveries/{delivery['id']}/replay"), 404, "unknown_delivery"
    )
    replayed = alpha.post(f"{base}/deliveries/{delivery['id']}/replay")
    assert replayed.status_code == 202 and replayed.get_json()["id"] == delivery["id"]
    assert_problem(alpha.get(f"{base}/deliveries?cursor=soon"), 422, "invalid_cursor")
    assert alpha.get(f"{base}/deliveries?limit=0").status_code == 422


def test_the_operators_commands_end_to_end_to_a_real_receiver(make_client):
    client = make_client(WEBHOOK_ALLOW_PRIVATE_ADDRESSES=True, RATELIMIT_ENABLED=False)
    app = client.application
    key = new_portal(app, "club")
    runner = app.test_cli_runner()
    with running_receiver(503) as receiver:
        added = runner.invoke(portal_cli, ["webhook", "add", "club", receiver.url, "--event", "match.created"])
        assert added.exit_code == 0, added.output
        hook_id = re.search(r"webhook ([0-9a-f]{32})", added.output).group(1)
        secret = re.search(r"secret: (whsec_\S+)", added.output).group(1)
        assert hook_id in runner.invoke(portal_cli, ["webhook", "list", "club"]).output
        refused = runner.invoke(portal_cli, ["webhook", "add", "club", receiver.url, "--event", "match.won"])
        assert refused.exit_code != 0

        created = create(portal_client(app, key), TWO_REMOTE)
        first = runner.invoke(webhooks_cli, ["deliver", "--once"])
        assert first.exit_code == 0 and "attempted 1 delivery" in first.output, first.output
        log = runner.invoke(portal_cli, ["webhook", "deliveries", "club", hook_id])
        assert "pending" in log.output and "503" in log.output, log.output
        delivery_id = log.output.split("\t", 1)[0]
        replayed = runner.invoke(portal_cli, ["webhook", "replay", "club", delivery_id])
        assert replayed.exit_code == 0, replayed.output
        assert "attempted 1 delivery" in runner.invoke(webhooks_cli, ["deliver", "--once"]).output
        assert "delivered" in runner.invoke(portal_cli, ["webhook", "deliveries", "club", hook_id]).output

        assert len(receiver.received) == 2
        got = receiver.received[-1]
        signed_at = int(got.headers["Boneyard-Signature"].split(",")[0][2:])
        payload = verify(secret, got.headers["Boneyard-Signature"], got.body, signed_at)
        assert payload["type"] == "match.created" and payload["match_id"] == created["id"]
        assert payload["id"] == delivery_id == got.headers["Boneyard-Delivery"]

        assert runner.invoke(portal_cli, ["webhook", "replay", "club", "0" * 32]).exit_code != 0
        rotated = runner.invoke(portal_cli, ["webhook", "rotate-secret", "club", hook_id])
        assert rotated.exit_code == 0 and "the replaced secret signs too until" in rotated.output, rotated.output
        at_once = runner.invoke(portal_cli, ["webhook", "rotate-secret", "club", hook_id, "--overlap-seconds", "0"])
        assert at_once.exit_code == 0 and "signs too" not in at_once.output, at_once.output
        assert runner.invoke(portal_cli, ["webhook", "remove", "club", hook_id]).exit_code == 0
        assert hook_id not in runner.invoke(portal_cli, ["webhook", "list", "club"]).output


def test_a_body_that_is_not_json_is_415(two):
    alpha, _ = two
    sent = alpha.post("/v1/portal/webhooks", data='{"url": "https://93.184.216.34/x"}')
    assert_problem(sent, 415, "unsupported_media_type")
