"""The web table's page and assets travel compressed (Brotli, else gzip); the API does not.

The files are read back through decompression and compared byte for byte with the files
on disk, so a wrong or stale cache entry fails here, not only a missing header.
"""

from __future__ import annotations

import gzip

import brotli
import pytest

from api.web import STATIC_DIR

from .helpers import TWO_REMOTE, create

ASSETS = sorted(p.name for p in STATIC_DIR.iterdir() if p.suffix in {".js", ".css"})
DECODE = {"br": brotli.decompress, "gzip": gzip.decompress}


@pytest.mark.parametrize("name", ASSETS)
@pytest.mark.parametrize(("accepted", "chosen"), [("gzip, deflate, br, zstd", "br"), ("gzip", "gzip")])
def test_each_module_and_the_stylesheet_arrive_compressed_and_intact(client, name, accepted, chosen):
    response = client.get(f"/play/{name}", headers={"Accept-Encoding": accepted})
    assert response.status_code == 200
    assert response.headers["Content-Encoding"] == chosen
    assert "Accept-Encoding" in response.headers["Vary"]
    body = response.get_data()
    assert int(response.headers["Content-Length"]) == len(body)
    original = (STATIC_DIR / name).read_bytes()
    assert DECODE[chosen](body) == original
    if len(original) > 4000:
        assert len(body) < len(original) / 2


def test_a_browser_that_accepts_no_encoding_gets_the_plain_file(client):
    response = client.get("/play/board.js", headers={"Accept-Encoding": "identity"})
    assert "Content-Encoding" not in response.headers
    assert response.get_data() == (STATIC_DIR / "board.js").read_bytes()


def test_the_page_is_compressed_with_its_mount_prefix_written_in(client):
    response = client.get("/play", headers={"Accept-Encoding": "br"})
    page = brotli.decompress(response.get_data()).decode()
    assert response.headers["Content-Encoding"] == "br"
    assert '<base href="/play/">' in page
    mounted = client.get("/play", headers={"Accept-Encoding": "br"}, base_url="http://localhost/games/")
    assert '<base href="/games/play/">' in brotli.decompress(mounted.get_data()).decode()


def test_a_compressed_assets_etag_names_its_encoding_and_revalidates_to_304(client):
    first = client.get("/play/table.css", headers={"Accept-Encoding": "br"})
    assert first.headers["ETag"].endswith(':br"')
    again = client.get("/play/table.css", headers={"Accept-Encoding": "br", "If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.get_data() == b""
    # the plain file's validator is another representation's: it does not match the Brotli one
    plain = client.get("/play/table.css", headers={"Accept-Encoding": "identity"})
    assert plain.headers["ETag"] != first.headers["ETag"]
    crossed = client.get("/play/table.css", headers={"Accept-Encoding": "gzip", "If-None-Match": first.headers["ETag"]})
    assert crossed.status_code == 200 and crossed.headers["Content-Encoding"] == "gzip"


def test_the_api_and_its_streams_are_not_compressed(client):
    presets = client.get("/v1/presets", headers={"Accept-Encoding": "br, gzip"})
    assert presets.status_code == 200 and "Content-Encoding" not in presets.headers
    created = create(client, TWO_REMOTE)
    stream = client.get(f"/v1/matches/{created['id']}/stream", headers={"Accept-Encoding": "br, gzip"}, buffered=False)
    assert stream.mimetype == "text/event-stream" and "Content-Encoding" not in stream.headers
    stream.close()
