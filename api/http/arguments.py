"""How request arguments are read (webargs under flask-smorest): a body that is not JSON is 415.

webargs reads the ``json`` location only from a request whose ``Content-Type`` is JSON;
any other body it treats as absent, so a JSON body sent without the header (curl's
``-d`` sends ``application/x-www-form-urlencoded``) was refused as "type: Missing data",
which sends the client looking in the wrong place. Here such a body is answered
415 ``unsupported_media_type``, saying which header to send.
"""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from flask import Request
from webargs.flaskparser import FlaskParser, is_json_request

from api.http.problem_codes import UNSUPPORTED_MEDIA_TYPE


class JsonBodyParser(FlaskParser):
    """webargs' Flask parser, except that a body is JSON or refused as such (415)."""

    def load_json(self, req: Request, schema: ma.Schema) -> Any:
        body = req.get_data(cache=True)
        if not is_json_request(req):
            if body:
                sent = req.mimetype or "no Content-Type"
                raise UNSUPPORTED_MEDIA_TYPE.error(
                    f"The body must be JSON, sent with the header 'Content-Type: application/json' (this one "
                    f"was sent as {sent})."
                )
            return ma.missing
        if not body:
            return ma.missing  # as webargs answers an empty body
        # Parsed once: the input guard read it under its policy before the view (refusing what it
        # does not accept), and Flask keeps that parse; webargs would parse the bytes again.
        return req.get_json()


#: The parser of every blueprint that reads a JSON body (``blueprint.ARGUMENTS_PARSER``).
JSON_BODY_PARSER = JsonBodyParser()
