"""Match records, ``boneyard-record/1`` (docs/records.md): a match as plain text, like PGN for chess.

``text`` reads and writes the text (standard library only), ``from_events`` writes a log (whole,
or a seat's redacted copy) as a record, ``replay`` drives the rules engine with a record's moves
and gives the log back, event for event.
"""
