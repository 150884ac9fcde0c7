"""The webhook worker: delivery rounds (``DeliverWebhooks``) sent to the bus, until stopped.

A thread of the autoplay runner (``flask --app wsgi boneyard autoplay``) or a process of its own
(``flask --app wsgi boneyard webhooks deliver [--once]``). What a round does is the use case's
(``api.services.webhook_delivery``); this loop only says when to ask for the next one.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from .bus import MessageBus
from .commands import DeliverWebhooks

log = logging.getLogger(__name__)


@dataclass
class WebhookWorker:
    bus: MessageBus

    def run_once(self) -> int:
        """One round: the due deliveries attempted once each; answers how many."""
        return self.bus.handle(DeliverWebhooks())

    def drain(self, max_rounds: int = 1000) -> int:
        """Attempt until nothing is due now (the CLI's ``--once``, tests); answers the attempts."""
        total = 0
        for _ in range(max_rounds):
            attempted = self.run_once()
            if not attempted:
                return total
            total += attempted
        raise RuntimeError(f"webhook deliveries still due after {max_rounds} rounds")

    def run(self, stop: threading.Event, *, idle_seconds: float = 0.5) -> None:
        """Serve until ``stop`` is set: rounds while there is work, a short nap when there is none."""
        while not stop.is_set():
            try:
                attempted = self.run_once()
            except Exception:  # the database went away: keep trying, slowly
                log.exception("webhook delivery round failed")
                attempted = 0
                stop.wait(1.0)
            if not attempted:
                stop.wait(idle_seconds)
