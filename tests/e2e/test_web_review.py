"""The review after a match at the web table (issue 38): once the match has ended, "Review" waits
for the server's analysis, then steps through every analysed decision with the table, every hand,
the choice made, the best one and the points it gave away, as the analysis says."""

from __future__ import annotations

import json

import requests

from .conftest import DESKTOP, LIVE_APPS

OLD_STORE_KEY = "boneyard.table.v1"  # the page resumes a match saved under it (the first format)


def ended_match(base: str) -> tuple[str, str]:
    """A match of a person (seat 0, played here through the API) against the greedy computer, to
    20 points, played to its end; answers its id and the person's token."""
    body = {
        "preset": "standard-draw",
        "seed": "review-e2e",
        "rules": {"target": 20},
        "seats": [{"name": "You", "type": "remote"}, {"name": "Greedy", "type": "bot", "level": "greedy"}],
    }
    created = requests.post(f"{base}/v1/matches", json=body, timeout=10).json()
    match_id, token = created["id"], next(s["token"] for s in created["seats"] if s["seat"] == 0)
    headers = {"Authorization": f"Bearer {token}"}
    for _ in range(500):
        view = requests.get(f"{base}/v1/matches/{match_id}/view", headers=headers, timeout=10).json()
        if view["status"] == "ended":
            return match_id, token
        action = view["legal_actions"][-1]  # the last listed: not always the first play, so some cost points
        answer = requests.post(f"{base}/v1/matches/{match_id}/actions", json=action, headers=headers, timeout=10)
        assert answer.status_code == 200, answer.text
    raise AssertionError("the match did not end")


def test_review_steps_through_each_analysed_decision_once_the_analysis_is_made(page_at, live_server, artifacts):
    from api.services.analyses import AnalysisRunner

    match_id, token = ended_match(live_server)
    saved = {"id": match_id, "local": {"0": token}, "seen": 0, "humans": 1, "viewer": 0}
    kept = [{"name": OLD_STORE_KEY, "value": json.dumps(saved)}]
    page = page_at(DESKTOP, storage_state={"cookies": [], "origins": [{"origin": live_server, "localStorage": kept}]})
    page.goto("/play")
    for _ in range(20):  # the hands' results the page has not shown yet come first
        page.wait_for_selector("#review-open, #overlay:not([hidden]) #continue")
        if page.is_visible("#review-open"):
            break
        page.click("#continue")
    page.click("#review-open")
    # the runner has not made it yet: the review says so and asks again
    page.wait_for_function("document.querySelector('#review-status')?.textContent.includes('analysing')")
    AnalysisRunner(LIVE_APPS[live_server].extensions["boneyard.bus"].handle).drain()  # type: ignore[attr-defined]
    analysis = requests.get(f"{live_server}/v1/matches/{match_id}/analysis", timeout=10).json()
    decisions = analysis["decisions"]
    assert len(decisions) >= 2
    page.wait_for_selector(".review", timeout=15_000)
    page.screenshot(path=str(artifacts / "review-first.png"))
    seen = []
    for i, decision in enumerate(decisions):
        card = page.locator(".review")
        assert card.get_attribute("data-review-seq") == str(decision["seq"])
        assert float(page.get_attribute("#review-lost", "data-lost")) == decision["lost"]
        assert f"played {decision['chosen']}." in page.inner_text("#review-move")
        rows = page.locator(".review-choices tbody tr")
        assert rows.count() == len(decision["choices"])
        assert page.locator(".review-choices tr.best td").first.inner_text() == decision["best"]
        # the mover's hand holds the tile it played, marked
        high, low = decision["chosen"][0], decision["chosen"][2]
        marked = page.locator(".review-hand.mover .tile.chosen").get_attribute("data-face")
        assert sorted(marked.split("-")) == sorted([high, low]) if decision["chosen"][1] == "-" else True
        seen.append(decision["seq"])
        if i < len(decisions) - 1:
            page.keyboard.press("ArrowRight") if i % 2 else page.click("#review-next")
    assert page.is_disabled("#review-next")
    page.click("#review-prev")
    assert page.locator(".review").get_attribute("data-review-seq") == str(decisions[-2]["seq"])
    assert seen == [d["seq"] for d in decisions]
    page.click("#review-back")
    page.wait_for_selector("#rematch")


def test_the_hint_button_selects_the_experts_pick_against_the_computer(page_at, live_server):
    body = {
        "preset": "standard-draw",
        "seed": "hint-e2e",
        "seats": [{"name": "You", "type": "remote"}, {"name": "Greedy", "type": "bot", "level": "greedy"}],
    }
    created = requests.post(f"{live_server}/v1/matches", json=body, timeout=10).json()
    match_id, token = created["id"], next(s["token"] for s in created["seats"] if s["seat"] == 0)
    headers = {"Authorization": f"Bearer {token}"}
    # on to a turn with two or more choices to weigh (the API's own hint says when)
    for _ in range(60):
        hint = requests.get(f"{live_server}/v1/matches/{match_id}/hint", headers=headers, timeout=10).json()
        if len(hint["choices"]) >= 2 and "tile" in hint["choices"][0]["action"]:
            break
        view = requests.get(f"{live_server}/v1/matches/{match_id}/view", headers=headers, timeout=10).json()
        requests.post(
            f"{live_server}/v1/matches/{match_id}/actions", json=view["legal_actions"][0], headers=headers, timeout=10
        )
    else:
        raise AssertionError("no turn with a choice")
    saved = {"id": match_id, "local": {"0": token}, "seen": 99, "humans": 1, "viewer": 0}
    kept = [{"name": OLD_STORE_KEY, "value": json.dumps(saved)}]
    page = page_at(DESKTOP, storage_state={"cookies": [], "origins": [{"origin": live_server, "localStorage": kept}]})
    page.goto("/play")
    page.wait_for_selector("body.my-turn #hint:not([hidden]):not(:disabled)")
    page.keyboard.press("h")
    page.wait_for_selector("#toast:not([hidden])")
    best = hint["choices"][0]
    assert page.inner_text("#toast").startswith(f"Hint: {best['choice']}")
    selected = page.get_attribute("#hand .hand-tile.selected", "data-tile")
    assert sorted(selected.split("-")) == sorted(str(n) for n in best["action"]["tile"])
