"""``GET /v1/presets`` reads the registry of game families: a family registered (here, a test's
toy family) is served with its presets, and gone again once taken out."""

from __future__ import annotations

from api.http import presets as presets_resource
from api.rules import games, resolve_rules
from tests.rules.toy_trains import TOY_TRAINS


def served_presets(client) -> dict[str, dict]:
    presets_resource._rendered.cache_clear()  # built once per process: the registry changed under it
    response = client.get("/v1/presets")
    assert response.status_code == 200
    return {preset["name"]: preset for preset in response.get_json()["presets"]}


def test_a_registered_familys_presets_are_served_and_leave_with_it(client):
    games.register(TOY_TRAINS)
    try:
        served = served_presets(client)
        assert list(served)[-1] == "toy-trains"
        toy = served["toy-trains"]
        assert (toy["title"], toy["players"]) == ("Toy trains", [2, 3, 4])
        assert toy["rules"] == [resolve_rules("toy-trains", {}, n).to_dict() for n in (2, 3, 4)]
        assert toy["rules"][0]["set"] == "double-12"
        assert toy["partner_rules"] == resolve_rules("toy-trains", {"partners": True}, 4).to_dict()
    finally:
        games.unregister(TOY_TRAINS.name)
    assert "toy-trains" not in served_presets(client)
    presets_resource._rendered.cache_clear()
