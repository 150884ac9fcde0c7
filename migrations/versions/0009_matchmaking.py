"""Matchmaking: seeks, challenges, and each portal player's event stream.

Live: yes — new tables only.

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


JSONDocument = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "seeks",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("portal_id", sa.String(32), nullable=True),
        sa.Column("player_ref", sa.String(128), nullable=True),
        sa.Column("secret_hash", sa.String(64), nullable=True),
        sa.Column("pool", sa.String(64), nullable=False),
        sa.Column("preset", sa.String(64), nullable=False),
        sa.Column("rules", JSONDocument, nullable=False),
        sa.Column("players", sa.Integer(), nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("rating_min", sa.Float(), nullable=True),
        sa.Column("rating_max", sa.Float(), nullable=True),
        sa.Column("fill_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("fill_level", sa.String(32), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("match_id", sa.String(32), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("seat_token", sa.String(64), nullable=True),
        sa.ForeignKeyConstraint(
            ["portal_id"], ["portals.id"], ondelete="CASCADE", name=op.f("fk_seeks_portal_id_portals")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_seeks")),
        sa.CheckConstraint("status IN ('waiting', 'paired', 'expired', 'canceled')", name=op.f("ck_seeks_status")),
    )
    op.create_index(op.f("ix_seeks_pool_status_created_at"), "seeks", ["pool", "status", "created_at"])
    op.create_index(op.f("ix_seeks_status_expires_at"), "seeks", ["status", "expires_at"])
    op.create_index(op.f("ix_seeks_status_fill_at"), "seeks", ["status", "fill_at"])
    op.create_index(op.f("ix_seeks_portal_id_player_ref_status"), "seeks", ["portal_id", "player_ref", "status"])
    op.create_table(
        "challenges",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("portal_id", sa.String(32), nullable=False),
        sa.Column("challenger_ref", sa.String(128), nullable=False),
        sa.Column("preset", sa.String(64), nullable=False),
        sa.Column("rules", JSONDocument, nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("seats", JSONDocument, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("match_id", sa.String(32), nullable=True),
        sa.ForeignKeyConstraint(
            ["portal_id"], ["portals.id"], ondelete="CASCADE", name=op.f("fk_challenges_portal_id_portals")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_challenges")),
        sa.CheckConstraint(
            "status IN ('pending', 'started', 'declined', 'canceled', 'expired')", name=op.f("ck_challenges_status")
        ),
    )
    op.create_index(op.f("ix_challenges_status_expires_at"), "challenges", ["status", "expires_at"])
    op.create_index(op.f("ix_challenges_portal_id_challenger_ref"), "challenges", ["portal_id", "challenger_ref"])
    op.create_table(
        "player_event_heads",
        sa.Column("portal_id", sa.String(32), nullable=False),
        sa.Column("player_ref", sa.String(128), nullable=False),
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("last_seq", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["portal_id"], ["portals.id"], ondelete="CASCADE", name=op.f("fk_player_event_heads_portal_id_portals")
        ),
        sa.PrimaryKeyConstraint("portal_id", "player_ref", name=op.f("pk_player_event_heads")),
    )
    op.create_index(op.f("ix_player_event_heads_key"), "player_event_heads", ["key"], unique=True)
    op.create_table(
        "player_events",
        sa.Column("portal_id", sa.String(32), nullable=False),
        sa.Column("player_ref", sa.String(128), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(32), nullable=False),
        sa.Column("data", JSONDocument, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["portal_id"], ["portals.id"], ondelete="CASCADE", name=op.f("fk_player_events_portal_id_portals")
        ),
        sa.PrimaryKeyConstraint("portal_id", "player_ref", "seq", name=op.f("pk_player_events")),
    )
    op.create_index(op.f("ix_player_events_created_at"), "player_events", ["created_at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_player_events_created_at"), table_name="player_events")
    op.drop_table("player_events")
    op.drop_index(op.f("ix_player_event_heads_key"), table_name="player_event_heads")
    op.drop_table("player_event_heads")
    op.drop_index(op.f("ix_challenges_portal_id_challenger_ref"), table_name="challenges")
    op.drop_index(op.f("ix_challenges_status_expires_at"), table_name="challenges")
    op.drop_table("challenges")
    op.drop_index(op.f("ix_seeks_portal_id_player_ref_status"), table_name="seeks")
    op.drop_index(op.f("ix_seeks_status_fill_at"), table_name="seeks")
    op.drop_index(op.f("ix_seeks_status_expires_at"), table_name="seeks")
    op.drop_index(op.f("ix_seeks_pool_status_created_at"), table_name="seeks")
    op.drop_table("seeks")
