"""The reference web table at ``/play``: static files that use only the public HTTP API.

A plain Flask :class:`~flask.Blueprint` (not flask-smorest), so the table stays out of
the OpenAPI document. There is no build step: ``static/`` holds the page, its
dependency-free ES modules (``app.js`` is the entry; each module's header says its concern)
and a stylesheet, served as they are. Every ``.js`` file here is a module the page loads
from its own origin, which the page's ``script-src 'self'`` allows. Register it with
``app.register_blueprint(api.web.blp)``.

The page and its assets are compressed (Brotli, else gzip, as the browser accepts) by
flask-compress, for these routes only: the API's answers are small and its streams must
flush each event as it comes. Each file is compressed once per version on disk (its
modification time is in the cache key), so a deploy or an edit is served at once.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Flask, Request, Response, after_this_request, current_app, request, send_from_directory
from flask.blueprints import BlueprintSetupState
from flask_compress import Compress

STATIC_DIR = Path(__file__).resolve().parent / "static"
COMPRESS_KEY = "boneyard.web_compress"
#: The pages, by endpoint: each is served with the mount prefix written into its ``<base href>``.
PAGES = {"web.table": "index.html", "web.tournament": "tournament.html"}

blp = Blueprint("web", __name__)


class CompressedFiles:
    """flask-compress's cache backend: compressed bytes by key (algorithm, mount, path, mtime).

    Only files under ``STATIC_DIR`` reach it (a missing file answers 404, which is never
    compressed), so it holds at most one entry per file, algorithm and version."""

    def __init__(self) -> None:
        self.entries: dict[str, bytes] = {}

    def get(self, key: str) -> bytes | None:
        return self.entries.get(key)

    def set(self, key: str, value: bytes) -> None:
        self.entries[key] = value


def file_version_key(req: Request) -> str:
    """The cache key of the file a request reads: a page (``PAGES``) has the mount prefix
    written into it, so the prefix is part of the key."""
    name = req.view_args.get("filename") if req.view_args else None
    name = name or PAGES.get(req.endpoint or "", "index.html")
    try:
        version = (STATIC_DIR / name).stat().st_mtime_ns
    except OSError:
        version = 0
    return f"{req.script_root}|{name}|{version}"


@blp.record_once
def set_up_compression(state: BlueprintSetupState) -> None:
    app = state.app
    assert isinstance(app, Flask)  # the blueprint is registered on Flask apps only
    # not for every route (that is flask-compress's default): only the web table's, below
    app.config.setdefault("COMPRESS_REGISTER", False)
    app.config.setdefault("COMPRESS_ALGORITHM", ["br", "gzip"])
    # each version of a file is compressed once (cached below): worth the slowest, smallest setting
    app.config.setdefault("COMPRESS_BR_LEVEL", 11)
    app.config.setdefault("COMPRESS_LEVEL", 9)
    app.config.setdefault("COMPRESS_CACHE_BACKEND", CompressedFiles)
    app.config.setdefault("COMPRESS_CACHE_KEY", file_version_key)
    compress = Compress()
    compress.init_app(app)
    app.extensions[COMPRESS_KEY] = compress


def compress_answer() -> None:
    """Compress this request's answer when the browser accepts it (see the module's docstring)."""
    after_this_request(current_app.extensions[COMPRESS_KEY].after_request)


@blp.get("/play")
@blp.get("/play/")
def table() -> Response:
    """The page; its assets are addressed through ``<base href>``, so it works at ``/play``
    and ``/play/`` alike, and under a mount prefix (``SCRIPT_NAME``)."""
    return page("index.html")


@blp.get("/play/tournament")
def tournament() -> Response:
    """A tournament's page (``?id=``): standings, rounds, and the person's own pairing to play."""
    return page("tournament.html")


def page(name: str) -> Response:
    """One of ``PAGES``, its ``<base href>`` the mount's ``/play/``, under the pages' strict CSP."""
    compress_answer()
    text = (STATIC_DIR / name).read_text(encoding="utf-8")
    text = text.replace("{{base}}", request.script_root + "/play/", 1)
    response = Response(text, mimetype="text/html")
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
    compress_answer()
    response = send_from_directory(STATIC_DIR, filename, max_age=0)
    # read the (small) file now: a streamed file would be compressed chunk by chunk on every
    # request, never cached, and without gzip (flask-compress streams only br, zstd, deflate)
    response.direct_passthrough = False
    response.make_sequence()
    if filename.endswith(".js"):
        # some systems' mime tables lack .js or call it text/plain, which browsers refuse for modules
        response.mimetype = "text/javascript"
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response
