"""OpenTelemetry traces, an optional extra (``pip install .[traces]``): on only when
``OTEL_EXPORTER_OTLP_ENDPOINT`` is set.

Unset (the default), nothing of OpenTelemetry is imported and :func:`span` and
:func:`annotate` cost a test of one module global. Set, :func:`configure` (called by
``create_app``, so in each gunicorn worker after the fork, and in the runner) makes this
process's tracer, whose spans go to ``<endpoint>/v1/traces`` over OTLP/HTTP in batches:

* one span per request (``api.http.tracing``), named by method and route template, with the
  status, request id, match id and seat as attributes;
* one span per unit of background work: a step of an all-bot match in the autoplay runner;
* ``boneyard.match_id`` and ``boneyard.event_seq`` (the match's seq after the work) where there
  is a match.

The tracer is the process's own, not OpenTelemetry's global provider: a test (or a process
that builds more than one app) gets the one it configured last.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

DEFAULT_SERVICE_NAME = "boneyard"

_tracer: Any = None  # the process's opentelemetry Tracer once configure() made one, else None


def configure(config: Mapping[str, Any], exporter: Any = None) -> bool:
    """Trace this process when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set in ``config`` (or an
    ``exporter`` is given: a test's in-memory one, whose spans are exported as they end).
    Answers whether tracing is on."""
    global _tracer
    endpoint = config.get("OTEL_EXPORTER_OTLP_ENDPOINT")
    if not endpoint and exporter is None:
        _tracer = None
        return False
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor

    name = config.get("OTEL_SERVICE_NAME") or DEFAULT_SERVICE_NAME
    provider = TracerProvider(resource=Resource.create({"service.name": name}))
    if exporter is None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        # The OTLP specification's rule for the general endpoint variable: the signal's path appended.
        exporter = OTLPSpanExporter(endpoint=f"{str(endpoint).rstrip('/')}/v1/traces")
        provider.add_span_processor(BatchSpanProcessor(exporter))
    else:
        provider.add_span_processor(SimpleSpanProcessor(exporter))
    _tracer = provider.get_tracer("boneyard")
    return True


def enabled() -> bool:
    return _tracer is not None


@contextmanager
def span(name: str, **attributes: Any) -> Iterator[Any]:
    """A span around the block (yielded; None when tracing is off), current inside it."""
    if _tracer is None:
        yield None
        return
    with _tracer.start_as_current_span(name, attributes=_present(attributes)) as current:
        yield current


def annotate(**attributes: Any) -> None:
    """Attributes on the current span (none given as None); nothing when tracing is off."""
    if _tracer is None:
        return
    from opentelemetry import trace  # loaded already: configure() imported the SDK

    trace.get_current_span().set_attributes(_present(attributes))


def _present(attributes: Mapping[str, Any]) -> dict[str, Any]:
    """Attribute names are dotted (``boneyard.match_id``); keyword arguments spell the dot ``__``."""
    return {key.replace("__", "."): value for key, value in attributes.items() if value is not None}
