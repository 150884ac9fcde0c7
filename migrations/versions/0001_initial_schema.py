"""Initial schema: matches, seats, events.

Live: yes — creates the first tables (no earlier server exists to keep serving).

Revision ID: 0001
Revises:
Create Date: 2025-01-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Written out rather than imported from api.store.tables: a migration is a
# snapshot and must not change when the models do.
JSONDocument = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "matches",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("preset", sa.String(64), nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("seed", sa.String(128), nullable=False),
        sa.Column("seed_commitment", sa.String(128), nullable=False),
        sa.Column("last_seq", sa.Integer(), server_default="0", nullable=False),
        sa.Column("summary", JSONDocument, nullable=False),
        sa.CheckConstraint("status IN ('waiting', 'playing', 'ended')", name=op.f("ck_matches_status")),
        sa.CheckConstraint("players >= 1", name=op.f("ck_matches_players")),
        sa.CheckConstraint("last_seq >= 0", name=op.f("ck_matches_last_seq")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_matches")),
    )
    op.create_index(
        op.f("ix_matches_status_created_at_id"),
        "matches",
        ["status", "created_at", "id"],
    )
    op.create_index(op.f("ix_matches_created_at_id"), "matches", ["created_at", "id"])

    op.create_table(
        "seats",
        sa.Column("match_id", sa.String(32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("type", sa.String(16), nullable=False),
        sa.Column("level", sa.String(32), nullable=True),
        sa.Column("token_hash", sa.String(64), nullable=True),
        sa.Column("player_ref", sa.String(128), nullable=True),
        sa.CheckConstraint("type IN ('remote', 'bot', 'open')", name=op.f("ck_seats_type")),
        sa.CheckConstraint("seat >= 0", name=op.f("ck_seats_seat")),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name=op.f("fk_seats_match_id_matches"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("match_id", "seat", name=op.f("pk_seats")),
    )
    op.create_index(op.f("ix_seats_token_hash"), "seats", ["token_hash"])

    op.create_table(
        "events",
        sa.Column("match_id", sa.String(32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(64), nullable=False),
        sa.Column("schema_version", sa.Integer(), nullable=False),
        sa.Column("data", JSONDocument, nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("seq >= 1", name=op.f("ck_events_seq")),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
            name=op.f("fk_events_match_id_matches"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("match_id", "seq", name=op.f("pk_events")),
    )


def downgrade() -> None:
    op.drop_table("events")
    op.drop_index(op.f("ix_seats_token_hash"), table_name="seats")
    op.drop_table("seats")
    op.drop_index(op.f("ix_matches_created_at_id"), table_name="matches")
    op.drop_index(op.f("ix_matches_status_created_at_id"), table_name="matches")
    op.drop_table("matches")
