"""The analysis after a match made by the real runner (``flask boneyard autoplay`` in a process of
its own, one analysis worker): an all-bot match played by it to its end is analysed in the
background and served, as the in-process analysis of the same log gives it."""

from __future__ import annotations

import pytest
import requests

from api.bots.analysis import analyse
from api.tools.golden import log_of
from tests.servers import running_autoplay, running_gunicorn, watching_changes

# the look below asks for the analysis at each of the runner's commits: more than the expensive
# reads' budget of 60 a minute per address on a fast machine, so the limits are off here
SETTINGS = {"AUTOPLAY_PACE_SECONDS": "0", "RATELIMIT_ENABLED": "false"}


@pytest.mark.serving
def test_the_runner_analyses_each_match_it_ends_in_the_background(database_url, tmp_path):
    with (
        watching_changes() as changes,
        running_gunicorn(database_url, tmp_path / "gunicorn.log", **SETTINGS) as (base, _),  # (its log wakes nothing)
        running_autoplay(database_url, tmp_path / "runner.log", changes=changes, **SETTINGS, ANALYSIS_SLOTS="1"),
    ):
        seats = [{"name": "A", "type": "bot", "level": "greedy"}, {"name": "B", "type": "bot", "level": "random"}]
        made = requests.post(
            f"{base}/v1/matches", json={"preset": "standard-block", "seats": seats, "rules": {"target": 20}}, timeout=10
        )
        assert made.status_code == 201, made.text
        match_id = made.json()["id"]

        def analysed() -> requests.Response | None:
            answer = requests.get(f"{base}/v1/matches/{match_id}/analysis", timeout=10)
            assert answer.status_code == 200 or answer.json()["code"] in ("match_not_over", "analysis_not_ready")
            return answer if answer.status_code == 200 else None

        # the runner commits each move, its claim and the analysis: each of its commits wakes the look
        answer = changes.until(analysed, within=120, what="the runner played the match and stored its analysis")
        audit = requests.get(f"{base}/v1/matches/{match_id}/audit?limit=5000", timeout=10).json()
        expected = analyse(log_of(audit), audit["seed"]).to_json()
        assert answer.json()["decisions"] == expected["decisions"] and expected["decisions"]
