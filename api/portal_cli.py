"""``flask --app wsgi boneyard portal …``: the operator's commands for portals and their keys.

A key is printed once, when it is made; the server keeps only its hash.
"""

from __future__ import annotations

import json
from typing import Any

import click
from flask import current_app
from flask.cli import AppGroup
from limits import parse_many

from api.http.callers import BUS_KEY
from api.services import errors
from api.services.commands import AddPortalKey, Command, CreatePortal, ListPortals, RevokePortalKey, SetPortalLimit

portal_cli = AppGroup("portal", help="Portals (tenants): create them, rotate their keys, set their limits.")


def run(command: Command[Any]) -> Any:
    try:
        return current_app.extensions[BUS_KEY].handle(command)
    except errors.ServiceError as exc:
        raise click.ClickException(str(exc)) from None


def checked_limit(value: str | None) -> str | None:
    """A rate in flask-limiter notation (``600 per minute``, ``10/second``), or None."""
    if value is None or value.strip().lower() in ("", "default"):
        return None
    try:
        parse_many(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a rate such as '600 per minute'") from None
    return value.strip()


@portal_cli.command("create")
@click.argument("name")
@click.option("--create-limit", default=None, help="Its own match-creation rate (default: RATE_LIMIT_PORTAL_CREATE).")
def create_command(name: str, create_limit: str | None) -> None:
    """Create portal NAME and print its first key (shown this once)."""
    made = run(CreatePortal(name, checked_limit(create_limit)))
    click.echo(f"portal {made['name']} ({made['id']})")
    click.echo(f"key {made['key_id']}: {made['key']}")
    click.echo("Keep the key secret: it is not shown again. Send it as the X-API-Key header.")


@portal_cli.command("add-key")
@click.argument("portal")
def add_key_command(portal: str) -> None:
    """Make another key for PORTAL (name or id); its other keys keep working until revoked."""
    made = run(AddPortalKey(portal))
    click.echo(f"key {made['key_id']}: {made['key']}")


@portal_cli.command("revoke-key")
@click.argument("portal")
@click.argument("key_id")
def revoke_key_command(portal: str, key_id: str) -> None:
    """Revoke KEY_ID of PORTAL at once (its last live key cannot be revoked)."""
    run(RevokePortalKey(portal, key_id))
    click.echo(f"revoked key {key_id}")


@portal_cli.command("limit")
@click.argument("portal")
@click.argument("create_limit")
def limit_command(portal: str, create_limit: str) -> None:
    """Set PORTAL's match-creation rate (CREATE_LIMIT such as '1000 per minute', or 'default')."""
    done = run(SetPortalLimit(portal, checked_limit(create_limit)))
    click.echo(f"{done['portal']}: create limit {done['create_limit'] or 'default'}")


@portal_cli.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_command(as_json: bool) -> None:
    """Every portal, with its keys' ids (never a key)."""
    portals = run(ListPortals())
    if as_json:
        click.echo(json.dumps(portals, indent=2))
        return
    for portal in portals:
        live = [k["key_id"] for k in portal["keys"] if k["revoked_at"] is None]
        limit = portal["create_limit"] or "default"
        click.echo(f"{portal['name']}\t{portal['id']}\tlimit={limit}\tkeys={','.join(live)}")
