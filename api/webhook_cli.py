"""The operator's webhook commands.

``flask --app wsgi boneyard portal webhook add|list|remove|rotate-secret|deliveries|replay``
manage a portal's endpoints as the portal itself does over HTTP (``/v1/portal/webhooks``);
``flask --app wsgi boneyard webhooks deliver [--once]`` runs the delivery worker alone (the
autoplay runner already runs one: :func:`start_webhook_worker`).
"""

from __future__ import annotations

import json
import logging
import signal
import threading
from typing import Any

import click
from flask import current_app
from flask.cli import AppGroup

from api.http.callers import BUS_KEY
from api.services import errors
from api.services.commands import (
    AddWebhook,
    Command,
    GetPortal,
    ListDeliveries,
    ListWebhooks,
    RemoveWebhook,
    ReplayDelivery,
    RotateWebhookSecret,
)
from api.services.webhook_worker import WebhookWorker
from api.services.webhooks import EVENT_TYPES, MAX_SECRET_OVERLAP

portal_webhook_cli = AppGroup("webhook", help="A portal's webhooks: add, list, remove, see deliveries, replay.")
webhooks_cli = AppGroup("webhooks", help="The webhook delivery worker.")


def run(command: Command[Any]) -> Any:
    try:
        return current_app.extensions[BUS_KEY].handle(command)
    except errors.ServiceError as exc:
        raise click.ClickException(str(exc)) from None


def portal_id(portal: str) -> str:
    """The id of the portal named ``portal`` (its name or id)."""
    found: str = run(GetPortal(portal))["id"]
    return found


def worker() -> WebhookWorker:
    """The delivery worker over the app's bus (its delivery policy wired by ``api.bootstrap``)."""
    return WebhookWorker(current_app.extensions[BUS_KEY])


def start_webhook_worker(stop: threading.Event) -> threading.Thread:
    """The delivery worker in a thread of this process, until ``stop`` is set."""
    thread = threading.Thread(target=worker().run, args=(stop,), name="webhook-delivery", daemon=True)
    thread.start()
    return thread


@portal_webhook_cli.command("add")
@click.argument("portal")
@click.argument("url")
@click.option(
    "--event", "events", multiple=True, type=click.Choice(EVENT_TYPES), help="An event type (repeat; default: all)."
)
def add_command(portal: str, url: str, events: tuple[str, ...]) -> None:
    """Register URL for PORTAL's match events and print its signing secret (shown this once)."""
    made = run(
        AddWebhook(
            portal_id(portal),
            url,
            events or None,
            allow_private_addresses=current_app.config["WEBHOOK_ALLOW_PRIVATE_ADDRESSES"],
        )
    )
    click.echo(f"webhook {made['id']}: {made['url']} ({', '.join(made['events'])})")
    click.echo(f"secret: {made['secret']}")
    click.echo("Keep the secret: it is not shown again (rotate-secret makes a new one).")


@portal_webhook_cli.command("list")
@click.argument("portal")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def list_command(portal: str, as_json: bool) -> None:
    """PORTAL's webhooks (never their secrets)."""
    hooks = run(ListWebhooks(portal_id(portal)))["items"]
    if as_json:
        click.echo(json.dumps(hooks, indent=2))
        return
    for hook in hooks:
        click.echo(f"{hook['id']}\t{hook['url']}\t{','.join(hook['events'])}")


@portal_webhook_cli.command("remove")
@click.argument("portal")
@click.argument("webhook_id")
def remove_command(portal: str, webhook_id: str) -> None:
    """Remove WEBHOOK_ID of PORTAL, with its deliveries."""
    run(RemoveWebhook(portal_id(portal), webhook_id))
    click.echo(f"removed webhook {webhook_id}")


@portal_webhook_cli.command("rotate-secret")
@click.argument("portal")
@click.argument("webhook_id")
@click.option(
    "--overlap-seconds",
    type=click.IntRange(0, int(MAX_SECRET_OVERLAP)),
    help="How long the replaced secret still signs (default: WEBHOOK_SECRET_OVERLAP_SECONDS; 0 after a leak)",
)
def rotate_command(portal: str, webhook_id: str, overlap_seconds: int | None) -> None:
    """A new signing secret for WEBHOOK_ID (the old one signs too until the overlap ends)."""
    made = run(RotateWebhookSecret(portal_id(portal), webhook_id, overlap_seconds))
    click.echo(f"secret: {made['secret']}")
    if made["previous_secret_until"] is not None:
        click.echo(f"the replaced secret signs too until {made['previous_secret_until']}")


@portal_webhook_cli.command("deliveries")
@click.argument("portal")
@click.argument("webhook_id")
@click.option("--limit", default=20, show_default=True, type=click.IntRange(1, 100))
@click.option("--json", "as_json", is_flag=True, help="Print JSON (each delivery with its payload and attempts).")
def deliveries_command(portal: str, webhook_id: str, limit: int, as_json: bool) -> None:
    """WEBHOOK_ID's latest deliveries, newest first, with their attempts."""
    page = run(ListDeliveries(portal_id(portal), webhook_id, limit))
    if as_json:
        click.echo(json.dumps(page, indent=2))
        return
    for d in page["items"]:
        click.echo(f"{d['id']}\t{d['type']}\t{d['match_id']}#{d['seq']}\t{d['status']}\tattempts={d['attempts']}")
        for a in d["log"]:
            click.echo(
                f"\t#{a['attempt']} {a['attempted_at']} {a['duration_ms']} ms {a['status_code']} {a['error'] or ''}"
            )


@portal_webhook_cli.command("replay")
@click.argument("portal")
@click.argument("delivery_id")
@click.option("--webhook", "webhook_id", default=None, help="The delivery's webhook (default: found by the id).")
def replay_command(portal: str, delivery_id: str, webhook_id: str | None) -> None:
    """Queue DELIVERY_ID of PORTAL again (same id and body, fresh signature)."""
    owner = portal_id(portal)
    candidates = [webhook_id] if webhook_id else [h["id"] for h in run(ListWebhooks(owner))["items"]]
    for candidate in candidates:
        try:
            done = current_app.extensions[BUS_KEY].handle(ReplayDelivery(owner, candidate, delivery_id))
        except (errors.UnknownDelivery, errors.UnknownWebhook):
            continue
        click.echo(f"queued delivery {done['id']} ({done['type']}) again")
        return
    raise click.ClickException(f"portal {portal!r} has no delivery {delivery_id!r}")


@webhooks_cli.command("deliver")
@click.option("--once", is_flag=True, help="Attempt what is due now, then exit.")
def deliver_command(once: bool) -> None:
    """Send due webhook deliveries until stopped (SIGTERM/SIGINT), or once."""
    sender = worker()
    if once:
        attempted = sender.drain()
        click.echo(f"attempted {attempted} deliver{'y' if attempted == 1 else 'ies'}")
        return
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    logging.getLogger("api").info("webhook delivery worker started")
    sender.run(stop)
    click.echo("webhook delivery worker stopped")
