"""Seat tokens: 256 random bits, shown once, stored only as a SHA-256 hash."""

from __future__ import annotations

import hashlib
import hmac
import secrets

TOKEN_BYTES = 32


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def matches(token_hash: str | None, candidate_hash: str) -> bool:
    """Constant-time comparison of two token hashes."""
    return token_hash is not None and hmac.compare_digest(token_hash, candidate_hash)
