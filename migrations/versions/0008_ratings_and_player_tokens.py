"""Rated play: the rated flag of a match, each portal player's rating per rules family and its
history, and the credentials a portal gives its players (their bots) to act as them.

Live: yes — adds matches.rated, NOT NULL with a constant default (no table rewrite on
PostgreSQL 11 or later nor on SQLite; older servers never make rated matches), and new tables.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("rated", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_table(
        "player_tokens",
        sa.Column("id", sa.String(16), nullable=False),
        sa.Column("portal_id", sa.String(32), nullable=False),
        sa.Column("player_ref", sa.String(128), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("label", sa.String(64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["portal_id"], ["portals.id"], ondelete="CASCADE", name=op.f("fk_player_tokens_portal_id_portals")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_player_tokens")),
    )
    op.create_index(op.f("ix_player_tokens_token_hash"), "player_tokens", ["token_hash"], unique=True)
    op.create_index(op.f("ix_player_tokens_portal_id_player_ref"), "player_tokens", ["portal_id", "player_ref"])
    op.create_table(
        "ratings",
        sa.Column("portal_id", sa.String(32), nullable=False),
        sa.Column("player_ref", sa.String(128), nullable=False),
        sa.Column("family", sa.String(16), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("ordinal", sa.Float(), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["portal_id"], ["portals.id"], ondelete="CASCADE", name=op.f("fk_ratings_portal_id_portals")
        ),
        sa.PrimaryKeyConstraint("portal_id", "player_ref", "family", name=op.f("pk_ratings")),
    )
    op.create_index(
        op.f("ix_ratings_portal_id_family_ordinal_player_ref"),
        "ratings",
        ["portal_id", "family", "ordinal", "player_ref"],
    )
    op.create_table(
        "rating_history",
        sa.Column("portal_id", sa.String(32), nullable=False),
        sa.Column("player_ref", sa.String(128), nullable=False),
        sa.Column("family", sa.String(16), nullable=False),
        sa.Column("match_id", sa.String(32), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("mu_before", sa.Float(), nullable=False),
        sa.Column("sigma_before", sa.Float(), nullable=False),
        sa.Column("mu_after", sa.Float(), nullable=False),
        sa.Column("sigma_after", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["portal_id"], ["portals.id"], ondelete="CASCADE", name=op.f("fk_rating_history_portal_id_portals")
        ),
        sa.PrimaryKeyConstraint("portal_id", "player_ref", "family", "match_id", name=op.f("pk_rating_history")),
    )
    op.create_index(
        op.f("ix_rating_history_portal_id_player_ref_family_at"),
        "rating_history",
        ["portal_id", "player_ref", "family", "at"],
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_rating_history_portal_id_player_ref_family_at"), table_name="rating_history")
    op.drop_table("rating_history")
    op.drop_index(op.f("ix_ratings_portal_id_family_ordinal_player_ref"), table_name="ratings")
    op.drop_table("ratings")
    op.drop_index(op.f("ix_player_tokens_portal_id_player_ref"), table_name="player_tokens")
    op.drop_index(op.f("ix_player_tokens_token_hash"), table_name="player_tokens")
    op.drop_table("player_tokens")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("rated")
