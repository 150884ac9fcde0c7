"""Webhooks of a trains match (issue 34): its first round starts the match, each round's end is
a hand's, the end names every winner, and a turn is sent only when it passes to another seat."""

from __future__ import annotations

from itertools import pairwise

from api.services.bus import MessageBus
from api.services.commands import MAX_AUDIT_PAGE, Caller, CreateMatch, GetAudit, SeatSpec
from api.store.memory import MemoryStore

from .support import play_to_end, tokens_of
from .test_webhooks import SECRET_KEYS, add_hook, keys_in, outbox, portal


def test_a_mexican_train_match_sends_its_rounds_its_shared_end_and_its_turns(bus: MessageBus, store: MemoryStore):
    acme = portal(bus)
    add_hook(bus, acme)
    seats = [SeatSpec(f"P{n}", "remote", player_ref=f"p{n}") for n in range(3)]
    created = bus.handle(CreateMatch("mexican-train", {"rounds": 2}, seats, "0" * 64, caller=Caller(acme)))
    play_to_end(bus, created["id"], tokens_of(created))
    log = bus.handle(GetAudit(created["id"], limit=MAX_AUDIT_PAGE))["events"]
    sent = outbox(store)
    assert not any(keys_in(payload["data"]) & SECRET_KEYS for payload in sent)

    (started,) = [p for p in sent if p["type"] == "match.started"]
    assert started["data"] == {"hand_number": 1, "leader": 0, "hand_counts": [15] * 3, "boneyard_count": 45}
    round_ends = [e for e in log if e["type"] == "round_ended"]
    assert [(p["seq"], p["data"]) for p in sent if p["type"] == "hand.ended"] == [
        (
            e["seq"],
            {
                "hand_number": e["round"],
                "reason": "blocked" if e["winner"] is None else "domino",
                "winner": e["winner"],
                "side": e["winner"],
                "pips": e["pips"],
                "scores": e["totals"],
            },
        )
        for e in round_ends
    ]
    (ended,) = [p for p in sent if p["type"] == "match.ended"]
    final = log[-1]
    assert ended["data"] == {"winner": final["winner"], "scores": final["scores"], "winners": final["winners"]}
    assert final["scores"] == round_ends[-1]["totals"]

    # who acted at each event of the log (a round's leader at its deal), the round and the totals then
    acted, totals, round_number, actor = {}, [0, 0, 0], 0, None
    for event in log:
        if event["type"] == "round_started":
            round_number, actor = event["round"], event["leader"]
        elif event["type"] in ("tile_placed", "passed", "tile_drawn"):
            actor = event["seat"]
        elif event["type"] == "round_ended":
            totals = event["totals"]
        acted[event["seq"]] = (actor, round_number, list(totals))
    moves = [(e["seq"], e["seat"]) for e in log if e["type"] in ("tile_placed", "passed", "tile_drawn")]
    turns = [p for p in sent if p["type"] == "turn.started"]
    assert turns and all(set(p["data"]) == {"seat", "player_ref", "hand_number", "scores"} for p in turns)
    for payload in turns:
        seat = payload["data"]["seat"]
        assert seat == next(mover for seq, mover in moves if seq > payload["seq"])  # the next to act
        assert payload["data"]["player_ref"] == f"p{seat}"
        assert (payload["data"]["hand_number"], payload["data"]["scores"]) == acted[payload["seq"]][1:]
    # a seat that plays a double keeps the turn to cover it: no turn.started for it then
    doubles = [e for e in log if e["type"] == "tile_placed" and e["tile"][0] == e["tile"][1]]
    kept = [e for e in doubles if acted.get(e["seq"] + 1, (None,))[0] == e["seat"]]
    assert kept, "this deal has a double covered by the seat that played it"
    sent_at = {p["seq"] for p in turns}
    assert not sent_at & {e["seq"] for e in kept}
    # within a round, the turn is sent each time it passes: never to the same seat twice running
    for before, after in pairwise(turns):
        if before["data"]["hand_number"] == after["data"]["hand_number"]:
            assert before["data"]["seat"] != after["data"]["seat"], (before, after)
