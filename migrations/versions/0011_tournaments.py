"""Tournaments (issue 37): each tournament's row and hash-chained log, and the matches its rounds
are played in.

Live: yes — new tables only.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


JSONDocument = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("portal_id", sa.String(32), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("last_seq", sa.Integer(), nullable=False),
        sa.Column("last_hash", sa.String(64), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["portal_id"], ["portals.id"], ondelete="CASCADE", name=op.f("fk_tournaments_portal_id_portals")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tournaments")),
        sa.CheckConstraint(
            "status IN ('registering', 'running', 'ended', 'cancelled')", name=op.f("ck_tournaments_status")
        ),
    )
    op.create_index(op.f("ix_tournaments_due_at"), "tournaments", ["due_at"])
    op.create_index(op.f("ix_tournaments_portal_id_created_at"), "tournaments", ["portal_id", "created_at"])
    op.create_table(
        "tournament_events",
        sa.Column("tournament_id", sa.String(32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(64), nullable=False),
        sa.Column("schema_version", sa.Integer(), nullable=False),
        sa.Column("data", JSONDocument, nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            ondelete="CASCADE",
            name=op.f("fk_tournament_events_tournament_id_tournaments"),
        ),
        sa.PrimaryKeyConstraint("tournament_id", "seq", name=op.f("pk_tournament_events")),
        sa.CheckConstraint("seq >= 1", name=op.f("ck_tournament_events_seq")),
    )
    op.create_table(
        "tournament_matches",
        sa.Column("match_id", sa.String(32), nullable=False),
        sa.Column("tournament_id", sa.String(32), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("table_number", sa.Integer(), nullable=False),
        sa.Column("seats", JSONDocument, nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], ondelete="CASCADE", name=op.f("fk_tournament_matches_match_id_matches")
        ),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            ondelete="CASCADE",
            name=op.f("fk_tournament_matches_tournament_id_tournaments"),
        ),
        sa.PrimaryKeyConstraint("match_id", name=op.f("pk_tournament_matches")),
    )
    op.create_index(
        op.f("ix_tournament_matches_tournament_id_round_table_number"),
        "tournament_matches",
        ["tournament_id", "round", "table_number"],
        unique=True,
    )


def downgrade() -> None:
    op.drop_table("tournament_matches")
    op.drop_table("tournament_events")
    op.drop_table("tournaments")
