"""Webhooks end to end over real processes: an endpoint registered through gunicorn, a match
made there, and the autoplay runner (`flask boneyard autoplay`, as scripts/run starts it)
delivering signed events to a real receiver on loopback, retrying the one it refused."""

from __future__ import annotations

import pytest
import requests

from tests.e2e.test_portals_http import operator_portal
from tests.servers import running_autoplay, running_gunicorn, watching_changes
from tests.webhook_receiver import running_receiver, verify

SEATS = [{"name": "Sam", "type": "remote", "player_ref": "sam"}, {"name": "Bo", "type": "bot"}]
SETTINGS = {"WEBHOOK_ALLOW_PRIVATE_ADDRESSES": "true", "WEBHOOK_RETRY_SECONDS": "0.2"}


# serving: what this adds to the delivery tests (tests/services/test_webhook_delivery.py and
# tests/api/test_webhooks.py, which claim, sign, retry and give up on both databases) is real
# processes, a real receiver and the runner's loop: the same on every database.
@pytest.mark.serving
def test_the_runner_delivers_signed_events_and_retries_a_refusal(database_url, tmp_path):
    key = operator_portal(database_url, "hooked-http")
    with (
        running_receiver(500) as receiver,
        watching_changes() as changes,
        running_gunicorn(
            database_url, tmp_path / "gunicorn.log", changes=changes, RATELIMIT_ENABLED="false", **SETTINGS
        ) as (base, _),
        running_autoplay(database_url, tmp_path / "runner.log", changes=changes, **SETTINGS),
    ):
        headers = {"X-API-Key": key}
        hook = requests.post(
            f"{base}/v1/portal/webhooks",
            json={"url": receiver.url, "events": ["match.created", "turn.started"]},
            headers=headers,
            timeout=10,
        )
        assert hook.status_code == 201, hook.text
        hook = hook.json()
        made = requests.post(f"{base}/v1/matches", json={"seats": SEATS}, headers=headers, timeout=10)
        assert made.status_code == 201, made.text
        match_id = made.json()["id"]

        def all_delivered() -> list[dict] | None:
            page = requests.get(f"{base}/v1/portal/webhooks/{hook['id']}/deliveries", headers=headers, timeout=10)
            items = page.json()["items"]
            return items if len(items) == 2 and all(d["status"] == "delivered" for d in items) else None

        deliveries = changes.until(all_delivered, within=30, what="both deliveries delivered")
        assert sorted(d["type"] for d in deliveries) == ["match.created", "turn.started"]
        assert sorted(len(d["log"]) for d in deliveries) == [1, 2]  # the refused one was retried
        retried = next(d for d in deliveries if len(d["log"]) == 2)
        assert [a["status_code"] for a in retried["log"]] == [200, 500]

        assert len(receiver.received) == 3
        for got in receiver.received:  # verified as the portal would on receipt, the recipe's tolerance
            payload = verify(hook["secret"], got.headers["Boneyard-Signature"], got.body, got.at)
            assert payload["match_id"] == match_id and payload["id"] == got.headers["Boneyard-Delivery"]
            assert payload["type"] == got.headers["Boneyard-Event"]
        turn = next(
            verify(hook["secret"], g.headers["Boneyard-Signature"], g.body, g.at)
            for g in receiver.received
            if g.headers["Boneyard-Event"] == "turn.started"
        )
        assert turn["data"]["seat"] == 0 and turn["data"]["player_ref"] == "sam"
