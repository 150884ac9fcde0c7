"""The analysis after a match as a record's annotations (docs/records.md, *Annotations*).

``annotate(record, events, analysis)`` puts one ``{%analysis …}`` comment after each analysed
move and one ``{%seat …}`` comment per seat after the match's end. The analysis is taken as the
JSON document ``GET /v1/matches/{id}/analysis`` answers (``api.bots.analysis``), so this module
reads no bot and stays beside the rules. Each comment is a plain-text token of ``key=value``
words; a replayer ignores it, and a program that knows ``%analysis`` reads it back
(``read_annotation``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from .from_events import RecordBuilder
from .model import Comment, Element, Record

ANALYSIS = "%analysis"
SEAT = "%seat"


def _number(value: float) -> str:
    """A value as the shortest decimal that reads back the same: ``2.5``, ``-3``, ``0``."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def decision_comment(decision: Mapping[str, Any]) -> str:
    """``%analysis seat=0 lost=2.5 best=5-5L exact=yes 6-4R=1.2,0 5-5L=3.4,2.5``: the points the
    move gave away, the best choice, whether the values with the hands shown are exact, then each
    choice with its value from what the seat knew and with the hands shown (``-``: not valued)."""
    words = [
        ANALYSIS,
        f"seat={decision['seat']}",
        f"lost={_number(decision['lost'])}",
        f"best={decision['best']}",
        f"exact={'yes' if decision['exact'] else 'no'}",
    ]
    for choice in decision["choices"]:
        shown = "-" if choice["shown"] is None else _number(choice["shown"])
        words.append(f"{choice['choice']}={_number(choice['known'])},{shown}")
    return " ".join(words)


def seat_comment(seat: Mapping[str, Any]) -> str:
    """``%seat 0 decisions=24 mean_lost=1.3 points_lost=31.2 worst=12,40,77`` (seqs of the worst)."""
    worst = ",".join(str(seq) for seq in seat["worst"]) or "-"
    return (
        f"{SEAT} {seat['seat']} decisions={seat['decisions']} mean_lost={_number(seat['mean_lost'])} "
        f"points_lost={_number(seat['points_lost'])} worst={worst}"
    )


def annotate(record: Record, events: Iterable[Mapping[str, Any]], analysis: Mapping[str, Any]) -> Record:
    """``record`` (the whole match's, written from ``events``) with the analysis as annotations:
    each analysed decision's comment after the move its first event made, and the seats' after
    the last element. ``events`` are the log the record was written from, in seq order."""
    by_seq = {d["seq"]: decision_comment(d) for d in analysis["decisions"]}
    builder = RecordBuilder()
    after: list[tuple[int, str]] = []  # (index of the element a comment follows, its text)
    for seq, event in enumerate(events, start=1):
        builder.add(event)
        if seq in by_seq:
            after.append((len(builder.elements) - 1, by_seq[seq]))
    if len(builder.elements) != len(record.without_comments()):
        raise ValueError("the events are not the ones the record was written from")
    elements: list[Element] = list(record.without_comments())
    for index, text in reversed(after):  # from the end, so the earlier indices stay put
        elements.insert(index + 1, Comment(text))
    elements += [Comment(seat_comment(seat)) for seat in analysis["seats"]]
    return replace(record, elements=tuple(elements))


def read_annotation(text: str) -> dict[str, str] | None:
    """A ``%analysis`` comment's words as ``{key: value}`` (the choices among them, by name); None
    for any other comment."""
    words = text.split(" ")
    if not words or words[0] != ANALYSIS:
        return None
    return dict(word.split("=", 1) for word in words[1:])
