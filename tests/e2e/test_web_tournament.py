"""The tournament page (/play/tournament) in headless Chromium over real HTTP: gunicorn serves the
page and the API, the autoplay runner plays the computers' seats and its sweep pairs each round.

A person holding a player token opens a Swiss of four (themself and three computers), joins it from
the page, sees the standings, follows the Play link to the table when round 1 is paired, plays that
match to its end by touch at 320x568, comes back and finds the result in the standings and in the
round's table (each equal to what the API says), and then their round-2 pairing, which the page
learned of from the player's event stream. The page never overflows the phone's width."""

from __future__ import annotations

import json
from contextlib import ExitStack

import requests

from tests.e2e.playing import Screens, axe_script, play_match, resize, serious_violations
from tests.e2e.test_client_lobby_http import player_token
from tests.e2e.test_portals_http import operator_portal
from tests.servers import running_autoplay, running_gunicorn, watching_changes

SETTINGS = {"WEB_CONCURRENCY": "2", "RATELIMIT_ENABLED": "false", "AUTOPLAY_PACE_SECONDS": "0"}
PHONE_SMALL = {"width": 320, "height": 568}
TIMEOUT = 10  # a bound on a broken request, never a measure

# nothing wider than the window: the page itself, and every element of the page's cards
NO_SIDEWAYS_JS = """() => {
  const out = [];
  const de = document.documentElement;
  if (de.scrollWidth > innerWidth) out.push(`the page is ${de.scrollWidth} px wide in ${innerWidth}`);
  for (const el of document.querySelectorAll('main *')) {
    if (el.closest('[hidden]') || !el.getClientRects().length) continue;
    const r = el.getBoundingClientRect();
    if (r.right > innerWidth + 0.5 || r.left < -0.5) {
      out.push(`${el.tagName} ${el.id || el.className} at ${r.left}..${r.right}`);
    }
  }
  return out;
}"""


def assert_fits_sideways(page, where: str) -> None:
    found = page.evaluate(NO_SIDEWAYS_JS)
    assert found == [], f"{where}: {found}"


def standings_on_screen(page) -> list[list[str]]:
    return page.eval_on_selector_all(
        "#t-standings-body tr", "rows => rows.map((r) => [...r.children].map((c) => c.textContent.trim()))"
    )


def test_a_person_joins_a_swiss_plays_their_pairing_from_the_page_and_sees_the_result(
    browser, database_url, tmp_path, artifacts
):
    key = {"X-API-Key": operator_portal(database_url, "club-web")}
    with ExitStack() as stack:
        changes = stack.enter_context(watching_changes())
        base, _ = stack.enter_context(
            running_gunicorn(database_url, tmp_path / "gunicorn.log", changes=changes, **SETTINGS)
        )
        stack.enter_context(running_autoplay(database_url, tmp_path / "runner.log", changes=changes, **SETTINGS))
        token = player_token(base, key["X-API-Key"], "ana")
        body = {
            "format": "swiss",
            "preset": "standard-block",
            "rules": {"target": 10},
            "rounds": 2,
            "turn_seconds": 120,
            "bot_levels": ["random"],
        }
        made = requests.post(f"{base}/v1/tournaments", json=body, headers=key, timeout=TIMEOUT)
        assert made.status_code == 201, made.text
        tid = made.json()["id"]
        url = f"{base}/v1/tournaments/{tid}"
        for number in (1, 2, 3):
            entered = requests.post(
                f"{url}/entrants",
                json={"name": f"Computer {number}", "members": [{"level": "random"}]},
                headers=key,
                timeout=TIMEOUT,
            )
            assert entered.status_code == 201, entered.text

        context = browser.new_context(
            viewport=PHONE_SMALL, base_url=base, bypass_csp=True, reduced_motion="reduce", has_touch=True
        )
        context.set_default_timeout(20_000)
        stack.callback(context.close)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))

        # The token comes in the address's fragment and is taken out of it at once.
        page.goto(f"/play/tournament?id={tid}#token={token}")
        page.wait_for_selector("#t-join:not([hidden])")
        assert "#token" not in page.url and page.evaluate("localStorage.getItem('boneyard.playerToken')") == token
        assert page.inner_text("#t-status") == "Registering: 3 entered"
        assert [row[1] for row in standings_on_screen(page)] == ["Computer 1", "Computer 2", "Computer 3"]
        assert_fits_sideways(page, "registering")
        # Looking again at an unchanged tournament costs a 304, and its standings are not asked again.
        standings_asked: list[str] = []
        page.on("request", lambda r: standings_asked.append(r.url) if "/standings?" in r.url else None)
        page.wait_for_selector("body[data-settled]")
        with page.expect_response(lambda r: r.url == f"{url}") as looked:
            page.evaluate("window.dispatchEvent(new Event('focus'))")
        assert (
            looked.value.status == 304 and looked.value.request.headers["if-none-match"] == looked.value.headers["etag"]
        )
        page.wait_for_selector("body[data-settled]")
        assert standings_asked == []
        page.click("#t-join")
        page.wait_for_function("document.querySelector('#t-mine-text').textContent.startsWith('You are entered as')")
        server = requests.get(url, headers=key, timeout=TIMEOUT).json()
        ana = next(e for e in server["entrants"] if e["members"][0]["player_ref"] == "ana")
        assert page.inner_text("#t-mine-text") == f"You are entered as {ana['name']}. Waiting for the start."
        # the headings name the tournament's tiebreaks, in its order
        assert page.eval_on_selector_all("#t-standings-head abbr", "els => els.map((e) => e.textContent)") == [
            "#",
            "Pts",
            "P",
            "Bu",
            "SB",
            "±",
        ]

        # The portal starts it: round 1's pairing reaches the page through the player's event stream.
        started = requests.post(f"{url}/start", headers=key, timeout=TIMEOUT)
        assert started.status_code == 200, started.text
        page.wait_for_selector("#t-play:not([hidden])")
        rounds = requests.get(f"{url}/rounds", headers=key, timeout=TIMEOUT).json()["rounds"]
        mine = next(t for t in rounds[0]["tables"] if ana["id"] in t["sides"])
        side = mine["sides"].index(ana["id"])
        opponent = next(e["name"] for e in server["entrants"] if e["id"] == mine["sides"][1 - side])
        assert page.inner_text("#t-mine-text") == f"Your pairing: round 1 vs {opponent}"
        assert page.locator("#t-rounds [data-round='1'] tbody tr").count() == 2
        assert_fits_sideways(page, "round 1 paired")
        page.screenshot(path=artifacts / "tournament-320x568-paired.png", full_page=True)

        # Play opens the table on that match, at the person's seat, and they play it to its end.
        page.click("#t-play")
        page.wait_for_selector("#table:not([hidden])")
        assert page.evaluate("sessionStorage.getItem('boneyard.tab.match')") == mine["match_id"]
        play_match(Screens(page), "touch")

        # The match's end offers the way back (play_match closed its dialog: open it again, as the
        # table does at the end) and the link leads to the tournament page: the result, in the
        # words and in the standings.
        page.evaluate("import('./dialogs.js').then((dialogs) => dialogs.showMatchEnd(() => {}))")
        page.click("#tournament-back")
        page.wait_for_selector("#t-rounds [data-round='1']")
        assert page.url.endswith(f"/play/tournament?id={made.json()['id']}")
        result = changes.until(
            lambda: next(
                t["result"]
                for t in requests.get(f"{url}/rounds", headers=key, timeout=TIMEOUT).json()["rounds"][0]["tables"]
                if t["number"] == mine["number"]
            ),
            60,
            "the match's end reaches its table",
        )
        points = {None: 1, side: 2}.get(result["winner"], 0)  # a win 2, a draw 1, a loss 0
        how = {2: "you won", 1: "a draw", 0: "you lost"}[points]
        said = f"Round 1 vs {opponent}: {how} {result['scores'][side]}–{result['scores'][1 - side]}."
        # a bound, not a window: when Back reloaded the page before the result reached the table,
        # the page learns it at the end of its feed's long-poll (25 s), as round 2's pairing below
        # ...or, once the computers' table has ended too, the line has moved on to round 2's pairing
        page.wait_for_function(
            """said => ['Your pairing: round 2 vs', said].some((line) =>
                 document.querySelector('#t-mine-text').textContent.startsWith(line))""",
            arg=said,
            timeout=60_000,
        )
        score = page.inner_text(f"#t-rounds [data-round='1'] tr[data-table='{mine['number']}'] .score")
        assert score == f"{result['scores'][0]}–{result['scores'][1]}"
        row = page.locator(f"#t-standings-body tr[data-entrant='{ana['id']}']")
        cells = row.locator("td, th").all_inner_texts()
        assert cells[1] == f"{ana['name']} (you)" and cells[3] == "1" and cells[2] == str(points)

        # Round 2 is paired once the computers' table has ended too: the page says so by itself.
        page.wait_for_function(
            "document.querySelector('#t-mine-text').textContent.startsWith('Your pairing: round 2 vs')", timeout=60_000
        )

        def agreed() -> tuple[list, list] | None:
            # the page re-reads the standings when it hears the tournament moved: until it has, the
            # computers' table may have ended in the API and not yet on the page
            api, page_rows = (
                requests.get(f"{url}/standings", headers=key, timeout=TIMEOUT).json()["standings"],
                standings_on_screen(page),
            )
            return (api, page_rows) if [row[2] for row in page_rows] == [str(r["match_points"]) for r in api] else None

        final, on_screen = changes.until(agreed, 60, "the page's standings equal to the API's")
        assert [row[0] for row in on_screen] == [str(r["rank"]) for r in final]
        assert [row[2] for row in on_screen] == [str(r["match_points"]) for r in final]
        assert [row[4:] for row in on_screen] == [[str(t["value"]) for t in r["tiebreaks"]] for r in final]
        assert_fits_sideways(page, "round 2 paired")
        page.screenshot(path=artifacts / "tournament-320x568-round2.png", full_page=True)
        assert serious_violations(page, axe_script()) == []
        for size in ({"width": 844, "height": 390}, {"width": 1280, "height": 800}):
            resize(page, size)
            assert_fits_sideways(page, f"round 2 paired, {size['width']}x{size['height']}")
        assert errors == []


def test_the_tournament_page_loads_under_its_enforced_csp_and_asks_who_is_looking(browser, live_server):
    """Without a token or a portal key the page asks for them; its modules load under its own
    Content-Security-Policy (enforced here), and each page keeps its own compressed copy."""
    for path, script in (
        ("/play/tournament", "tournament.js"),
        ("/play", "app.js"),
        ("/play/tournament", "tournament.js"),
    ):
        served = requests.get(f"{live_server}{path}", headers={"Accept-Encoding": "br"}, timeout=TIMEOUT)
        assert served.headers["Content-Encoding"] == "br" and f'src="{script}"' in served.text
        assert "script-src 'self'" in served.headers["Content-Security-Policy"]
    context = browser.new_context(viewport=PHONE_SMALL, base_url=live_server)  # CSP enforced
    context.set_default_timeout(10_000)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if msg.type in ("error", "warning") else None)
        page.goto("/play/tournament?id=t-unknown")
        page.wait_for_selector("#t-open:not([hidden])")
        assert page.inner_text("#t-open-why").startswith("Enter your player token")
        assert page.is_hidden("#t-id-field") and page.is_hidden("#t-mine")
        assert_fits_sideways(page, "the form")
        # a token the server does not know: the form says so, and the token is not kept
        page.fill("#t-token", "bypl_not-a-token")
        page.click("#t-open button[type=submit]")
        # (a locator, not a string predicate: Playwright would eval that, which this CSP forbids)
        page.locator("#t-open-why", has_text="did not take").wait_for()
        assert page.evaluate("localStorage.getItem('boneyard.playerToken')") is None
        assert all("status of 401" in e for e in errors), errors  # the refused token, as the console says it
    finally:
        context.close()


def test_the_portal_reads_the_standings_fifty_rows_a_page(page_at, live_server, live_portal_key):
    """A browser holding the portal's key (no player token): the standings in the API's pages,
    Previous and Next, each row as ``GET …/standings`` answers it; no "You" box."""
    key = {"X-API-Key": live_portal_key}
    body = {"format": "swiss", "rounds": 3, "turn_seconds": 60, "bot_levels": ["random"]}
    made = requests.post(f"{live_server}/v1/tournaments", json=body, headers=key, timeout=TIMEOUT)
    assert made.status_code == 201, made.text
    url = f"{live_server}/v1/tournaments/{made.json()['id']}"
    for number in range(1, 56):
        entered = requests.post(
            f"{url}/entrants",
            json={"name": f"Computer {number}", "members": [{"level": "random"}]},
            headers=key,
            timeout=TIMEOUT,
        )
        assert entered.status_code == 201, entered.text

    def names(offset: int) -> list[str]:
        answer = requests.get(f"{url}/standings", params={"offset": offset, "limit": 50}, headers=key, timeout=TIMEOUT)
        return [row["name"] for row in answer.json()["standings"]]

    page = page_at(PHONE_SMALL)
    page.context.add_init_script(f"localStorage.setItem('boneyard.apiKey', {json.dumps(live_portal_key)})")
    page.goto(f"/play/tournament?id={made.json()['id']}")
    page.wait_for_selector("#t-next:not([hidden])")
    on_screen = lambda: [row[1] for row in standings_on_screen(page)]  # noqa: E731
    assert on_screen() == names(0) and len(names(0)) == 50
    assert page.is_hidden("#t-mine") and page.is_hidden("#t-prev") and page.inner_text("#t-page") == "1–50"
    assert page.inner_text("#t-status") == "Registering: 55 entered"
    assert_fits_sideways(page, "the first page")
    page.click("#t-next")
    page.wait_for_selector("#t-prev:not([hidden])")
    assert on_screen() == names(50) == [f"Computer {n}" for n in range(51, 56)]
    assert page.is_hidden("#t-next") and page.inner_text("#t-page") == "51–55"
    page.click("#t-prev")
    page.wait_for_selector("#t-next:not([hidden])")
    assert on_screen() == names(0) and page.js_errors == []


# --- the page against a stand-in: shapes of GET /v1/tournaments/… set up exactly ---------------------------
def entrant(number: int, name: str, player_ref: str | None = None) -> dict:
    member = {"kind": "player", "player_ref": player_ref, "level": None} if player_ref else None
    return {
        "id": f"e{number}",
        "name": name,
        "members": [member or {"kind": "bot", "player_ref": None, "level": "random"}],
        "rating": None,
        "withdrawn": False,
    }


def standing(rank: int, number: int, name: str, points: int, streak: int = 0) -> dict:
    tiebreaks = [{"name": n, "value": 0} for n in ("buchholz", "sonneborn_berger", "win_margin")]
    return {
        "rank": rank, "entrant_id": f"e{number}", "name": name, "match_points": points, "played": 1,
        "wins": points // 2, "draws": 0, "losses": 1 - points // 2, "byes": 0, "points_for": 0,
        "points_against": 0, "tiebreaks": tiebreaks, "withdrawn": False, "streak": streak,
    }  # fmt: skip


def table(number: int, sides: list[str], result: tuple[int, int, int] | None) -> dict:
    decided = {"winner": result[0], "scores": list(result[1:]), "forfeit": False} if result else None
    return {"number": number, "sides": sides, "match_id": f"m{number}", "result": decided}


def stand_in(page, tournament: dict, rounds: list[dict], my_seats: list[dict]) -> None:
    """The page's requests answered from these shapes; its long polls of the player's events are
    held unanswered (nothing happens), so what is on screen comes from these answers alone."""
    tid, standings = tournament["id"], tournament["standings"]
    held = []

    def answer(route) -> None:
        path = route.request.url.split("/v1/", 1)[1]
        if path.startswith("me/events"):
            if "wait=0&" in path or path.endswith("wait=0"):
                route.fulfill(json={"player_ref": "ana", "seq": 7, "events": [], "next_after": None})
            else:
                held.append(route)
            return
        bodies = {
            f"tournaments/{tid}": tournament,
            f"tournaments/{tid}/rounds": {"tournament_id": tid, "seq": 9, "rounds": rounds, "my_seats": my_seats},
        }
        if path.startswith(f"tournaments/{tid}/standings"):
            route.fulfill(json={"tournament_id": tid, "seq": 9, "standings": standings, "next_offset": None})
        else:
            route.fulfill(json=bodies[path.split("?")[0]], headers={"ETag": '"9"'})

    page.route("**/v1/me/events**", answer)
    page.route(f"**/v1/tournaments/{tid}**", answer)
    page.context.add_init_script("localStorage.setItem('boneyard.playerToken', 'bypl_stand-in')")


def a_tournament(tid: str, settings: dict, standings: list[dict], **status: object) -> dict:
    names = {row["entrant_id"]: row["name"] for row in standings}
    entrants = [entrant(int(e[1:]), name, "ana" if name == "ana" else None) for e, name in sorted(names.items())]
    base_settings = {
        "format": "swiss", "preset": "standard-block", "side_size": 1, "rounds": 2, "tiebreaks":
        ["buchholz", "sonneborn_berger", "win_margin"], "turn_seconds": 60, "rules": {}, "rated": False,
        "starts_at": None, "max_entrants": None, "rating_min": None, "rating_max": None, "bot_levels": ["random"],
        "duration_minutes": None, "duplicate": False,
    }  # fmt: skip
    return {
        "id": tid, "status": "running", "paused": False, "cancel_reason": None,
        "settings": {**base_settings, **settings}, "planned_rounds": 2, "ends_at": None, "closed": False,
        "current_round": 1, "rounds_ended": 0, "entrants": entrants, "standings": standings, "seq": 9,
        "chain_head": {"seq": 9, "hash": "0" * 64}, "created_at": "2026-12-04T16:00:00Z", **status,
    }  # fmt: skip


FIELD = [standing(1, 1, "ana", 2), standing(2, 3, "Computer 3", 2), standing(3, 2, "Computer 2", 0),
         standing(3, 4, "Computer 4", 0)]  # fmt: skip


def test_a_duplicate_pairing_offers_its_second_leg_with_the_first_legs_result(page_at):
    tournament = a_tournament("t-dup", {"duplicate": True}, FIELD)
    rounds = [
        {
            "number": 1, "ended": False, "bye": None, "seed_commitment": "c" * 64,
            "tables": [table(1, ["e1", "e2"], (0, 10, 3)), table(2, ["e2", "e1"], None),
                       table(3, ["e3", "e4"], (0, 10, 0)), table(4, ["e4", "e3"], None)],
        }
    ]  # fmt: skip
    seats = [
        {"round": 1, "table": 1, "match_id": "m1", "seat": 0, "token": "bymt_one"},
        {"round": 1, "table": 2, "match_id": "m2", "seat": 1, "token": "bymt_two"},
    ]
    page = page_at(PHONE_SMALL)
    stand_in(page, tournament, rounds, seats)
    page.route(
        "**/play/", lambda route: route.fulfill(body="<!doctype html><title>table</title>", content_type="text/html")
    )
    page.goto("/play/tournament?id=t-dup")
    page.wait_for_selector("#t-play:not([hidden])")
    assert (
        page.inner_text("#t-mine-text") == "Your pairing: round 1 vs Computer 2 (table 2 of 2; table 1: you won 10–3)"
    )
    assert "Duplicate deals" in page.inner_text("#t-meta")
    assert_fits_sideways(page, "a duplicate pairing")
    page.click("#t-play")
    page.wait_for_url("**/play/")
    assert page.evaluate("sessionStorage.getItem('boneyard.tab.match')") == "m2"
    saved = page.evaluate("JSON.parse(localStorage.getItem('boneyard.matches.v1'))")
    assert saved["m2"]["local"] == {"1": "bymt_two"} and saved["m2"]["humans"] == 1


def test_an_arena_says_its_clock_and_streaks_and_waits_for_the_next_pairing(page_at):
    field = [{**row, "streak": 3 if row["name"] == "ana" else 0} for row in FIELD]
    tournament = a_tournament(
        "t-arena", {"format": "arena", "rounds": None, "duration_minutes": 30}, field,
        planned_rounds=0, ends_at="2026-12-04T17:30:00+00:00", current_round=2,
    )  # fmt: skip
    rounds = [
        {
            "number": 1,
            "ended": True,
            "bye": None,
            "seed_commitment": None,
            "tables": [table(1, ["e1", "e2"], (0, 10, 3))],
        },
        {"number": 2, "ended": False, "bye": None, "seed_commitment": None, "tables": [table(1, ["e3", "e4"], None)]},
    ]
    page = page_at(PHONE_SMALL)
    stand_in(page, tournament, rounds, [{"round": 1, "table": 1, "match_id": "m1", "seat": 0, "token": "bymt_one"}])
    page.goto("/play/tournament?id=t-arena")
    page.wait_for_function("document.querySelector('#t-mine-text').textContent !== ''")
    assert page.inner_text("#t-mine-text") == "Pairing 1 vs Computer 2: you won 10–3. Waiting for your next pairing."
    assert page.is_hidden("#t-play")
    assert page.inner_text("#t-status").startswith("Pairing until ")
    assert page.eval_on_selector_all("#t-standings-head abbr", "els => els.map((e) => e.textContent)")[-1] == "Str"
    assert standings_on_screen(page)[0][-1] == "3" and "30 min" in page.inner_text("#t-meta")
    assert_fits_sideways(page, "an arena")
