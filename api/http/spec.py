"""The OpenAPI document's making: the flask-smorest ``Api`` and what is written into its spec
besides the routes (problem+json error responses, security schemes, event schemas, unions,
field shapes). ``create_app`` calls :func:`make_api` before the blueprints are registered and
:func:`complete_spec` after; ``scripts/write-openapi`` writes what they make to ``openapi/``."""

from __future__ import annotations

from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin
from flask import Flask, Response
from flask_smorest import Api
from flask_smorest.spec.plugins import FlaskPlugin
from werkzeug.exceptions import HTTPException

from api.http import errors, input_guard, problem_codes, request_ids
from api.http.event_schemas import register_event_schemas
from api.http.limits import POLICIES_ATTRIBUTE
from api.http.matches import ALTERNATIVES, UNIONS
from api.http.openapi_shapes import field_shape, register_alternatives, register_shapes, register_unions
from api.http.rate_limit_policies import HEADERS as RATE_LIMIT_HEADERS
from api.http.tournaments import COMPONENTS as TOURNAMENT_COMPONENTS
from api.http.tournaments import UNIONS as TOURNAMENT_UNIONS

#: The config keys flask-smorest makes the document's header of; the rest of it is the code's.
DOCUMENT_CONFIG_PREFIXES = ("API_", "OPENAPI_")
#: The finished specs of this process, by the config they were made from.
MADE_DOCUMENTS: dict[tuple[tuple[str, str], ...], APISpec] = {}


def _document_config(app: Flask) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, repr(v)) for k, v in app.config.items() if k.startswith(DOCUMENT_CONFIG_PREFIXES)))


class BoneyardApi(Api):
    """flask-smorest ``Api`` whose errors (and their docs) are problem documents, and whose
    document is made once per process.

    The document depends on the code and on the ``API_*``/``OPENAPI_*`` config only, and
    making it (converting every schema of every operation) is three quarters of the making of
    an app: the test suite makes hundreds. So the first app of a process with a given such
    config documents its blueprints; every later one registers the same blueprints without
    documenting them, and takes that finished spec as its own (:func:`complete_spec`). Only
    flask-smorest's public hooks are overridden (``ERROR_SCHEMA``, ``register_blueprint``,
    ``handle_http_exception``).
    """

    # One instance per process (a schema copies as itself: ``ProblemSchema.__deepcopy__``):
    # flask-smorest documents an error response per HTTP status for every app it starts.
    ERROR_SCHEMA = errors.ProblemSchema()

    def __init__(self, app: Flask, **kwargs: Any) -> None:
        self.flask_app = app
        self.document_key = _document_config(app)
        #: The spec this process made already for this config (None: this app makes it).
        self.documented = MADE_DOCUMENTS.get(self.document_key)
        super().__init__(app, **kwargs)

    def handle_http_exception(self, error: HTTPException) -> Response:
        return errors.handle_http_exception(error)

    def register_blueprint(self, blp: Any, *, parameters: Any = None, **options: Any) -> None:
        if self.documented is None:
            super().register_blueprint(blp, parameters=parameters, **options)
            return
        # flask-smorest's own registration (pinned 0.47.0), less its documenting: the name ->
        # Api entry its request-time helpers look up, then Flask's registration.
        self.flask_app.extensions["flask-smorest"]["blp_name_to_api"][options.get("name", blp.name)] = self
        self.flask_app.register_blueprint(blp, **options)


class ShapedMarshmallowPlugin(MarshmallowPlugin):
    """apispec's marshmallow plugin, documenting fields by their shape (``openapi_shapes``)
    from the first schema it converts on (the problem document's, at the Api's start)."""

    def init_spec(self, spec: APISpec) -> None:
        super().init_spec(spec)
        assert self.converter is not None  # made by init_spec
        self.converter.add_attribute_function(field_shape)


def make_api(app: Flask) -> BoneyardApi:
    """The app's ``Api``, its spec holding the error responses and security schemes; the
    blueprints are registered on it next, then :func:`complete_spec`. When this process has
    made the document already (for this config), the ``Api`` only routes, and
    :func:`complete_spec` hands it that document."""
    api = BoneyardApi(app, spec_kwargs={"marshmallow_plugin": ShapedMarshmallowPlugin()})
    if api.documented is None:
        input_guard.document(api)
        problem_responses_documented(api)
        document_security(api.spec)
    return api


def complete_spec(api: BoneyardApi) -> None:
    """What the spec gets once every route is in: the event schemas, the unions, the shapes;
    the finished spec is kept for the process's later apps (or taken from it)."""
    if api.documented is not None:
        api.spec = api.documented
        return
    register_event_schemas(api.spec)
    register_unions(api.spec, {**UNIONS, **TOURNAMENT_UNIONS})
    for name, schema in TOURNAMENT_COMPONENTS.items():
        api.spec.components.schema(name, schema=schema)
    register_alternatives(api.spec, ALTERNATIVES)
    register_shapes(api.spec)
    document_rate_limits(api)
    request_ids.document(api.spec)
    MADE_DOCUMENTS[api.document_key] = api.spec


def document_rate_limits(api: BoneyardApi) -> None:
    """``RateLimit-Policy`` and ``RateLimit`` on each response of every limited operation (its
    view marked by ``api.http.limits``); the shared default response is not the operation's own."""
    refs = {}
    for name, header in RATE_LIMIT_HEADERS.items():
        component = name.replace("-", "")
        api.spec.components.header(component, header)
        refs[name] = {"$ref": f"#/components/headers/{component}"}
    paths = api.spec.to_dict()["paths"]  # apispec's own dicts, not a copy
    app = api.flask_app
    for rule in app.url_map.iter_rules():
        view_class = getattr(app.view_functions[rule.endpoint], "view_class", None)
        for method in sorted(rule.methods or ()):
            if getattr(getattr(view_class, method.lower(), None), POLICIES_ATTRIBUTE, None) is None:
                continue
            operation = paths[FlaskPlugin.flaskpath2openapi(rule.rule)][method.lower()]
            for response in operation["responses"].values():
                if "$ref" not in response:
                    response.setdefault("headers", {}).update(refs)


def problem_responses_documented(api: Api) -> None:
    """flask-smorest registers its error responses as ``application/json``; ours are
    problem+json. Every operation's default response lists what any request may be answered.
    flask-smorest's ``X-Pagination`` header is dropped: our lists page by cursor (``next_cursor``,
    ``Link``), so it would be an unused model in every generated client."""
    for response in api.spec.components.responses_lazy.values():
        content = response.get("content", {})
        if "application/json" in content:
            content[errors.PROBLEM_CONTENT_TYPE] = content.pop("application/json")
    api.spec.components.responses_lazy["DEFAULT_ERROR"].update(problem_codes.default_response_doc())
    api.spec.components.headers_lazy.pop("PAGINATION", None)
    api.spec.components.schemas.pop("PaginationMetadata", None)


def document_security(spec: APISpec) -> None:
    """The three ways a request proves who it is: a seat token, a player token, a portal key."""
    spec.components.security_scheme(
        "seatToken",
        {"type": "http", "scheme": "bearer", "description": "The seat's secret token, from match creation or a claim"},
    )
    spec.components.security_scheme(
        "playerToken",
        {
            "type": "http",
            "scheme": "bearer",
            "description": "A player token (bypl_…) a portal issued for one of its players: acts as that "
            "player on seeks, challenges and /v1/me/events (docs/matchmaking.md)",
        },
    )
    spec.components.security_scheme(
        "portalKey",
        {
            "type": "apiKey",
            "in": "header",
            "name": "X-API-Key",
            "description": "A portal's key (`flask boneyard portal create`): scopes matches, players "
            "and statistics to the portal; needed to create and list where PUBLIC_MATCHES is off",
        },
    )
