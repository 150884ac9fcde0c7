"""The application factory."""

from __future__ import annotations

from api import create_app
from api.config import DEFAULT_DATABASE_URL, REPO_ROOT, from_environ


def test_defaults_come_from_the_environment_and_overrides_win(database_url):
    app = create_app({"DATABASE_URL": database_url, "CORS_ORIGINS": ["https://a.example"]})
    try:
        assert app.config["MAX_CONTENT_LENGTH"] == 64 * 1024
        assert app.config["CORS_ORIGINS"] == ["https://a.example"]
        assert app.config["DATABASE_URL"] == database_url
    finally:
        app.extensions["boneyard.store"].dispose()


def test_the_default_database_is_a_sqlite_file_in_the_repo_root():
    config = from_environ({})
    assert config["DATABASE_URL"] == DEFAULT_DATABASE_URL == f"sqlite:///{REPO_ROOT / 'boneyard.db'}"
    assert config["AUTO_MIGRATE"] is True
    assert config["CORS_ORIGINS"] == "*"


def test_environment_values_are_parsed():
    config = from_environ(
        {
            "DATABASE_URL": "postgresql+psycopg://u:p@h/db",
            "AUTO_MIGRATE": "false",
            "CORS_ORIGINS": "https://a.example, https://b.example",
            "MAX_CONTENT_LENGTH": "1024",
        }
    )
    assert config["DATABASE_URL"] == "postgresql+psycopg://u:p@h/db"
    assert config["AUTO_MIGRATE"] is False
    assert config["CORS_ORIGINS"] == ["https://a.example", "https://b.example"]
    assert config["MAX_CONTENT_LENGTH"] == 1024


def test_the_migrate_command_brings_the_database_to_head(app):
    result = app.test_cli_runner().invoke(args=["boneyard", "migrate"])
    assert result.exit_code == 0, result.output
    assert "database at head" in result.output
