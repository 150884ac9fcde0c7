"""Swagger UI at ``/docs``, served from files installed with the app, not from a CDN.

Portals often run their back ends on networks without internet access, where a page that
loads its scripts from a public CDN is blank. Here every byte of the page comes from this
server: the page, a small start-up script, and Swagger UI's own release files.

Where the files come from: the ``flask-swagger-ui`` wheel, pinned in ``pyproject.toml``,
whose ``dist/`` folder is Swagger UI's release byte for byte (``swagger-ui-dist`` of the
same version on npm; its ``dist/VERSION`` names it). Only that folder is used: the
package's own blueprint renders an inline script, which this page's Content-Security-Policy
forbids, and serves whatever the folder holds. (``swagger-ui-bundle``, the other packaged
copy, still ships Swagger UI 4, which renders no OpenAPI 3.1 document.)

* ``GET /docs``: the page, revalidated on every load (``no-cache``) so a deploy shows at once;
  it names the document by ``url_for``, so it works under a mount prefix too.
* ``GET /docs/init.js``: starts Swagger UI on our ``/v1/openapi.json`` (a file, not an inline
  script: the CSP allows scripts from this origin only).
* ``GET /docs/assets/<version>/<name>``: the few release files the page uses, by name
  (:data:`ASSETS`; anything else is 404, so there is no listing and nothing beside or outside
  the folder to reach). The version is in the path, so the files are cached for a year as
  ``immutable``: a new pin is a new address.

A plain Flask blueprint (like the web table's), so none of this is in the OpenAPI document.
Nothing here is rate limited or needs a token; the input guard checks these requests as it
checks every other.
"""

from __future__ import annotations

from pathlib import Path

import flask_swagger_ui
from flask import Blueprint, Response, abort, current_app, send_from_directory, url_for
from markupsafe import escape

#: Swagger UI's release files, as the ``flask-swagger-ui`` wheel ships them.
DIST_DIR = Path(flask_swagger_ui.__file__).resolve().parent / "dist"
#: The Swagger UI release those files are (``v5.34.0`` in the file): the cache key of their addresses.
SWAGGER_UI_VERSION = (DIST_DIR / "VERSION").read_text(encoding="ascii").strip().removeprefix("v")
#: What the page loads, and all that is served from the folder: name -> media type.
ASSETS = {
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui.css": "text/css",
    "favicon-32x32.png": "image/png",
    "favicon-16x16.png": "image/png",
}
ASSET_MAX_AGE = 365 * 24 * 3600

#: Swagger UI needs no more: its icons are data: URIs in its stylesheet, and React sets its
#: inline styles through the DOM (which style-src does not govern). "Try it out" calls this origin.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="icon" type="image/png" sizes="32x32" href="{icon32}">
<link rel="icon" type="image/png" sizes="16x16" href="{icon16}">
<link rel="stylesheet" href="{css}">
<script defer src="{bundle}"></script>
<script defer src="{init}"></script>
</head>
<body>
<div id="swagger-ui" data-spec-url="{spec}"></div>
<noscript>This page needs JavaScript. The API document itself: <a href="{spec}">{spec}</a>.</noscript>
</body>
</html>
"""

INIT_SCRIPT = """\
// Starts Swagger UI on the document the page names (the page's CSP allows no inline script).
const root = document.getElementById("swagger-ui");
window.ui = SwaggerUIBundle({
  url: root.dataset.specUrl,
  domNode: root,
  deepLinking: true,
  validatorUrl: null,  // its default sends the document to a public validator: no network here
});
"""

blp = Blueprint("docs_ui", __name__)


@blp.get("/docs")
@blp.get("/docs/")
def page() -> Response:
    """The page: Swagger UI on ``/v1/openapi.json``, every file from this server."""

    def asset_url(name: str) -> str:
        return url_for("docs_ui.asset", version=SWAGGER_UI_VERSION, name=name)

    html = PAGE.format(
        title=escape(f"{current_app.config['API_TITLE']} API"),
        icon32=escape(asset_url("favicon-32x32.png")),
        icon16=escape(asset_url("favicon-16x16.png")),
        css=escape(asset_url("swagger-ui.css")),
        bundle=escape(asset_url("swagger-ui-bundle.js")),
        init=escape(url_for("docs_ui.init_script")),
        spec=escape(url_for("api-docs.openapi_json")),
    )
    response = Response(html, mimetype="text/html")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    return _nosniff(response)


@blp.get("/docs/init.js")
def init_script() -> Response:
    response = Response(INIT_SCRIPT, mimetype="text/javascript")
    response.headers["Cache-Control"] = "no-cache"  # unversioned, like the page
    return _nosniff(response)


@blp.get("/docs/assets/<version>/<name>")
def asset(version: str, name: str) -> Response:
    """One of :data:`ASSETS` of this release; conditional GETs answer 304."""
    if version != SWAGGER_UI_VERSION or name not in ASSETS:
        abort(404)
    response = send_from_directory(DIST_DIR, name, mimetype=ASSETS[name], max_age=ASSET_MAX_AGE)
    response.cache_control.public = True
    response.cache_control.immutable = True
    return _nosniff(response)


def _nosniff(response: Response) -> Response:
    # browsers refuse a script or stylesheet whose declared type is wrong, rather than guess
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response
