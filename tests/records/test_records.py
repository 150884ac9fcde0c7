"""Match records (docs/records.md): every golden log round-trips through the format; the canonical
form is a fixed point; a record that departs from the grammar or from the rules is refused at
its line and column; a seat's record during play shows nothing that seat may not see."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.records.from_events import UnwritableEvent, record_of
from api.records.model import FORMAT, Boneyard, Comment, Deal, Move, Position
from api.records.replay import RecordReplayError, replay
from api.records.text import WIDTH, RecordSyntaxError, parse, write
from api.rules import redact_event
from api.tools.golden import EXAMPLES, VECTORS, audit_document, dumps, log_of, summarize
from tests.long_runs import long_run

NAMES = [vector.name for vector in VECTORS]


def golden_text(name: str) -> str:
    return (EXAMPLES / f"{name}.audit.json").read_text()


def record_text(name: str) -> str:
    audit = json.loads(golden_text(name))
    return write(record_of(log_of(audit), match_id=audit["match_id"]))


@pytest.mark.parametrize("name", NAMES)
def test_each_golden_log_round_trips_through_its_record_to_the_same_events_and_final_state(name):
    audit = json.loads(golden_text(name))
    text = record_text(name)
    record = parse(text)
    assert write(record) == text  # the canonical form is a fixed point
    events = [event.to_dict() for event in replay(record)]
    assert events == log_of(audit)
    again = audit_document(record.value("Match"), record.value("Seed"), events)
    assert dumps(again) == golden_text(name)  # byte for byte, hash chain included
    assert summarize(again) == json.loads((EXAMPLES / f"{name}.expected.json").read_text())


def test_every_game_family_and_every_kind_of_move_is_in_the_golden_records():
    texts = {name: record_text(name) for name in NAMES}
    tokens = " ".join(texts.values()).split()
    kinds = {
        "line end": "0:6-4R",
        "up": "U",
        "train": "/mexican",
        "toe": "/toe:",
        "auto": "*",
        "claim": "=",
        "muggins": ":M+",
        "knock": ":K",
        "pass": ":P",
        "time-out": ":T1",
        "replaced": ":R=greedy",
        "turn-up": "TurnUp",
    }
    joined = " ".join(tokens)
    assert [kind for kind, text in kinds.items() if kind != "line end" and text not in joined] == []
    assert {parse(t).value("Family") for t in texts.values()} == {"line", "trains"}
    assert {parse(t).value("Set") for t in texts.values()} == {"double-6", "double-9", "double-12"}


@pytest.mark.parametrize("name", NAMES)
def test_canonical_lines_are_at_most_79_characters_and_have_no_trailing_space(name):
    text = record_text(name)
    header, moves = text.split("\n\n", 1)
    assert all(line.startswith("[") and line.endswith("]") for line in header.split("\n"))
    for line in moves.rstrip("\n").split("\n"):
        assert line == line.rstrip() and line
        assert len(line) <= WIDTH or " " not in line.strip()


def test_a_comment_survives_a_round_trip_and_a_replay_ignores_it():
    text = record_text("muggins-calls-2p")
    record = parse(text)
    at = next(i for i, e in enumerate(record.elements) if isinstance(e, Move) and e.kind == "muggins")
    elements = list(record.elements)
    elements.insert(at + 1, Comment("the count {10} was left \\ unclaimed"))
    commented = write(replace(record, elements=tuple(elements)))
    assert "{the count {10\\} was left \\\\ unclaimed}" in commented
    assert write(parse(commented)) == commented
    assert parse(commented).elements[at + 1] == Comment("the count {10} was left \\ unclaimed")
    assert len(replay(parse(commented))) == len(replay(record))


def syntax_error(text: str) -> RecordSyntaxError:
    with pytest.raises(RecordSyntaxError) as caught:
        parse(text)
    return caught.value


def test_a_record_that_departs_from_the_grammar_is_refused_at_its_line_and_column():
    text = record_text("standard-draw-2p")
    lines = text.split("\n")
    hand = lines.index("Hand 1 lead 0")
    moves = hand + 4  # Hand, two Deal lines, Boneyard
    first = lines[moves].split(" ")[0]

    def changed(number: int, line: str) -> str:
        return "\n".join(lines[:number] + [line] + lines[number + 1 :])

    seat, tile = first.split(":")[0], first.split(":")[1][:3]  # "0", "6-6"
    high, low = tile.split("-")
    flipped = first.replace(tile, f"{low}-{high}", 1) if high != low else first.replace(tile, "3-4", 1)
    cases = {
        # a tile written low end first
        changed(moves, lines[moves].replace(first, flipped, 1)): (moves + 1, len(seat) + 2),
        # a move that is none
        changed(moves, "0:Q " + lines[moves]): (moves + 1, 1),
        # a comment left open
        changed(moves, lines[moves] + " {forgot"): (moves + 1, len(lines[moves]) + 2),
        # a tag's value that is not JSON
        changed(2, '[Site "?]'): (3, 7),
        # the wrong version
        changed(0, '[Format "boneyard-record/2"]'): (1, 9),
        # a keyword without what it needs
        changed(hand, "Hand 1 lead"): (hand + 2, 1),  # where the seat was due: the next line's Deal
    }
    for bad, (line, column) in cases.items():
        error = syntax_error(bad)
        assert (error.position.line, error.position.column) == (line, column), (str(error), bad.split("\n")[line - 1])
    assert str(syntax_error("Hand 1 lead 0\n")).startswith("1:1: a record begins with its tags")
    missing = syntax_error(f'[Format "{FORMAT}"]\n\n')
    assert "no Game, Family, Set, Players, Rules, Seats, SeedCommitment, Result tag" in str(missing)


def replay_error(text: str) -> RecordReplayError:
    with pytest.raises(RecordReplayError) as caught:
        replay(parse(text))
    return caught.value


def test_a_record_that_departs_from_the_rules_is_refused_where_it_departs():
    text = record_text("standard-draw-2p")
    lines = text.split("\n")
    moves = lines.index("Hand 1 lead 0") + 4
    tokens = lines[moves].split(" ")
    own = next(i for i, t in enumerate(tokens) if "*" not in t and t[2].isdigit())  # a seat's own play
    column = 1 + sum(len(t) + 1 for t in tokens[:own])

    def changed(line: str) -> str:
        return "\n".join(lines[:moves] + [line] + lines[moves + 1 :])

    # a tile the seat does not hold
    played = tokens[own]
    elsewhere = "6-6" if played[2:5] != "6-6" else "5-5"
    error = replay_error(changed(" ".join(tokens[:own] + [played[:2] + elsewhere + played[5:]] + tokens[own + 1 :])))
    assert error.position == Position(moves + 1, column)
    assert "refused by the rules" in error.message
    # a consequence written otherwise: the forced lead taken for a seat's own move
    lead = next(i for i, t in enumerate(tokens) if t.endswith("*"))
    error = replay_error(changed(" ".join(tokens[:lead] + [tokens[lead][:-1]] + tokens[lead + 1 :])))
    assert error.position.line == moves + 1 and "the rules give" in error.message
    # a result the moves do not give
    result = next(i for i, line in enumerate(lines) if line.startswith("[Result "))
    error = replay_error("\n".join(lines[:result] + ['[Result {"scores":[0,0],"winner":1}]'] + lines[result + 1 :]))
    assert error.position == Position(result + 1, 1) and error.message.startswith("Result is ")
    # a seed that is not the committed one
    seed = next(i for i, line in enumerate(lines) if line.startswith("[Seed "))
    error = replay_error("\n".join(lines[:seed] + ['[Seed "another"]'] + lines[seed + 1 :]))
    assert error.position == Position(seed + 1, 1)
    # another set's shuffle
    shuffle = next(i for i, line in enumerate(lines) if line.startswith("[SeedAlgorithm "))
    error = replay_error("\n".join(lines[:shuffle] + ['[SeedAlgorithm "boneyard-shuffle-v2"]'] + lines[shuffle + 1 :]))
    assert error.position == Position(shuffle + 1, 1) and "boneyard-shuffle-v1" in error.message
    # a record cut short
    assert "ends where the rules go on" in replay_error("\n".join(lines[: moves + 1]) + "\n").message


def test_a_seats_record_during_play_shows_its_own_tiles_and_no_other_nor_the_seed():
    log = log_of(json.loads(golden_text("standard-draw-2p")))
    during = log[: next(i for i, e in enumerate(log) if e["type"] == "hand_ended") + 3]
    seat = 1
    record = parse(write(record_of([redact_event(e, seat) for e in during], seat=seat)))
    hands = [e for e in record.elements if isinstance(e, Deal)]
    started = [e for e in during if e["type"] == "hand_started"]
    assert [h.tiles for h in hands if h.seat == seat] == [tuple(tuple(t) for t in s["hands"][seat]) for s in started]
    assert all(all(t is None for t in h.tiles) for h in hands if h.seat != seat)
    boneyards = [e for e in record.elements if isinstance(e, Boneyard)]
    assert boneyards and all(all(t is None for t in b.tiles) for b in boneyards)
    others_draws = [e for e in record.elements if isinstance(e, Move) and e.kind == "draw" and e.seat != seat]
    assert others_draws and all(m.tile is None for m in others_draws)
    assert record.value("Seed") is None and record.value("Result") == "*"
    error = replay_error(write(record))
    assert "no Seed tag" in error.message


def test_the_example_of_the_format_document_is_a_golden_record():
    doc = (EXAMPLES.parents[1] / "docs" / "records.md").read_text()
    example = doc.split("## An example\n\n```\n", 1)[1].split("```", 1)[0]
    text = record_text("muggins-calls-2p")
    for line in example.split("\n"):
        if line and "…" not in line:
            assert line in text.split("\n"), line


TAG_VALUES = st.sampled_from(["5", '"x"', "null", "[]", "{}", "[1,2]", '{"a":1}', "true", '[{"seat":9}]', "-1", "1.5"])
EDITS = st.lists(
    st.tuples(st.floats(0, 1), st.sampled_from('0123456789-:[]{}\\"LRUD*=+/ ?\nDKPMTR'), st.booleans()),
    min_size=1,
    max_size=3,
)


@settings(max_examples=long_run(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(NAMES), edits=EDITS, tag=st.integers(0, 18), value=TAG_VALUES, retag=st.booleans())
def test_any_text_is_read_and_replayed_or_refused_at_a_place_never_otherwise(name, edits, tag, value, retag):
    """A broken record is refused with a line and column (RecordSyntaxError, RecordReplayError),
    whatever is broken: a character here and there, a tag's value of another type."""
    lines = record_text(name).split("\n")
    if retag:
        lines[tag] = f"[{lines[tag][1:].split(' ')[0]} {value}]"
    text = "\n".join(lines)
    for where, char, insert in edits:
        k = int(where * (len(text) - 1))
        text = text[:k] + char + text[k + (0 if insert else 1) :]
    try:
        record = parse(text)
        if record.value("Seed") is not None:
            replay(record)
    except (RecordSyntaxError, RecordReplayError) as refused:
        assert refused.position.line >= 1 and refused.position.column >= 1


def test_a_seats_record_is_never_written_from_the_unredacted_log():
    log = log_of(json.loads(golden_text("standard-draw-2p")))
    with pytest.raises(UnwritableEvent, match="redact the log first"):
        record_of(log[:5], seat=1)  # the deal as the server holds it, every hand in it
    drawn = next(i for i, e in enumerate(log) if e["type"] == "tile_drawn")
    other = 1 - log[drawn]["seat"]
    redacted = [redact_event(e, other) for e in log[:drawn]]
    with pytest.raises(UnwritableEvent, match="redact the log first"):
        record_of([*redacted, log[drawn]], seat=other)  # another seat's draw, its tile in it
