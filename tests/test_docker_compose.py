"""docker-compose.yml wires the API to its database (no Docker needed to check)."""

from __future__ import annotations

from pathlib import Path

import yaml
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parent.parent


def load_compose():
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))


def command_text(service) -> str:
    parts = []
    for key in ("entrypoint", "command"):
        value = service.get(key) or []
        parts.extend([value] if isinstance(value, str) else value)
    return " ".join(parts)


def test_the_api_database_url_points_at_the_db_service():
    compose = load_compose()
    url = make_url(compose["services"]["api"]["environment"]["DATABASE_URL"])
    db_env = compose["services"]["db"]["environment"]
    assert url.drivername == "postgresql+psycopg"
    assert url.host == "db" and url.port == 5432
    assert (url.username, url.password, url.database) == (
        db_env["POSTGRES_USER"],
        db_env["POSTGRES_PASSWORD"],
        db_env["POSTGRES_DB"],
    )


def test_the_api_migrates_before_it_serves():
    command = command_text(load_compose()["services"]["api"])
    assert "alembic upgrade head" in command
    assert command.index("alembic upgrade head") < command.index("gunicorn")


def test_the_api_waits_for_a_healthy_db():
    compose = load_compose()
    assert compose["services"]["api"]["depends_on"]["db"]["condition"] == "service_healthy"
    assert "healthcheck" in compose["services"]["db"]


def test_the_api_listens_beyond_localhost_inside_its_container():
    api = load_compose()["services"]["api"]
    assert api["environment"]["BIND"].startswith("0.0.0.0:")
    assert (ROOT / "Dockerfile").read_text(encoding="utf-8").startswith("FROM python:3.11-slim")


def test_the_autoplay_runner_runs_beside_the_api_on_the_same_database():
    services = load_compose()["services"]
    runner = services["autoplay"]
    assert runner["environment"]["DATABASE_URL"] == services["api"]["environment"]["DATABASE_URL"]
    assert command_text(runner).endswith("boneyard autoplay")
    assert runner["restart"] == "unless-stopped"
    # It starts once the API is ready: the API migrates the database first.
    assert runner["depends_on"]["api"]["condition"] == "service_healthy"


def test_the_api_is_healthy_when_its_readyz_answers_200():
    check = load_compose()["services"]["api"]["healthcheck"]
    command = check["test"]
    assert command[:2] == ["CMD", "python"] and "http://127.0.0.1:8000/readyz" in command[-1]
    compile(command[-1], "healthcheck", "exec")  # the probe is valid Python (it runs in the image)


def test_scripts_run_starts_the_autoplay_runner_beside_gunicorn():
    script = (ROOT / "scripts" / "run").read_text(encoding="utf-8")
    migrate, autoplay = script.index("wsgi boneyard migrate"), script.index("wsgi boneyard autoplay &")
    assert migrate < autoplay < script.rindex("gunicorn.conf.py")


def test_the_api_and_the_runner_each_serve_metrics_on_a_port_of_their_own():
    """In separate containers they share no metrics directory: each is scraped (docs/operations.md)."""
    services = load_compose()["services"]
    binds = {name: services[name]["environment"]["METRICS_BIND"] for name in ("api", "autoplay")}
    assert binds == {"api": "0.0.0.0:9100", "autoplay": "0.0.0.0:9101"}
    assert "127.0.0.1:9100:9100" in services["api"]["ports"]
    assert services["autoplay"]["ports"] == ["127.0.0.1:9101:9101"]
    assert "METRICS_TOKEN" not in services["api"]["environment"]  # not on the public port
