"""The reference web table at ``/play``: static files that use only the public HTTP API.

A plain Flask :class:`~flask.Blueprint` (not flask-smorest), so the table stays out of
the OpenAPI document. There is no build step: ``static/`` holds the page, its
dependency-free ES modules (``app.js`` is the entry; each module's header says its concern)
and a stylesheet, served as they are. Every ``.js`` file here is a module the page loads
from its own origin, which the page's ``script-src 'self'`` allows. Register it with
``app.register_blueprint(api.web.blp)``.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, request, send_from_directory

STATIC_DIR = Path(__file__).resolve().parent / "static"

blp = Blueprint("web", __name__)


@blp.get("/play")
@blp.get("/play/")
def table() -> Response:
    """The page; its assets are addressed through ``<base href>``, so it works at ``/play``
    and ``/play/`` alike, and under a mount prefix (``SCRIPT_NAME``)."""
    page = (STATIC_DIR / "index.html").read_text(encoding="utf-8")
    page = page.replace("{{base}}", request.script_root + "/play/", 1)
    response = Response(page, mimetype="text/html")
    # the page is tiny and names unversioned assets: always revalidate so a deploy shows at once
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Content-Security-Policy"] = (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "connect-src 'self'; base-uri 'self'; frame-ancestors 'none'"
    )
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response


@blp.get("/play/<path:filename>")
def asset(filename: str) -> Response:
    """The page's modules (``*.js``), ``table.css`` and the icon; conditional GETs answer 304."""
    response = send_from_directory(STATIC_DIR, filename, max_age=0)
    if filename.endswith(".js"):
        # some systems' mime tables lack .js or call it text/plain, which browsers refuse for modules
        response.mimetype = "text/javascript"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response
