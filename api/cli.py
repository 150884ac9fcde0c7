"""``boneyard``: the Python package's own command line (``python -m api.cli`` without installing it).

``boneyard verify AUDIT.json [--pins FILE] [--pin SEQ:HASH ...]`` checks an ended match's audit
log offline, bot decisions included (api/verify.py). ``boneyard record …`` converts between an
audit log and a match's record, validates and replays records (api/record_cli.py). The operator's commands that need the
app and its database are Flask's (``flask --app wsgi boneyard …``, api/portal_cli.py).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from api import record_cli, verify


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="boneyard", description="Boneyard's offline tools.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    verify.add_arguments(
        commands.add_parser(
            "verify",
            help="check an ended match's whole audit log, bot decisions included (no server needed)",
            description=(verify.__doc__ or "").split("\n\n")[0],
        )
    )
    record_cli.add_arguments(
        commands.add_parser(
            "record",
            help="a match's record (docs/records.md): from an audit log, validated, replayed, back to an audit log",
            description=(record_cli.__doc__ or "").split("\n\n")[0],
        )
    )
    args = parser.parse_args(argv)
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    raise SystemExit(main())
