"""Portals as tenants: their keys, the matches they own, and statistics kept per portal player.

The old ``player_stats`` (a fold of every ended match whose seats named a player, anyone's)
is dropped, not converted: its figures counted matches no portal vouched for. The new table
is written by the transaction that ends a match, for matches of a portal only.

Live: no — drops and remakes player_stats with other columns (servers of 0005 would write the
old shape), and on SQLite rebuilds matches to add its foreign key: stop the servers first.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

# Written out, not imported from api.store.tables: a migration is a snapshot.
JSONDocument = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "portals",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("create_limit", sa.String(64), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_portals")),
    )
    op.create_index(op.f("ix_portals_name"), "portals", ["name"], unique=True)
    op.create_table(
        "portal_keys",
        sa.Column("id", sa.String(16), nullable=False),
        sa.Column("portal_id", sa.String(32), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["portal_id"], ["portals.id"], ondelete="CASCADE", name=op.f("fk_portal_keys_portal_id_portals")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_portal_keys")),
    )
    op.create_index(op.f("ix_portal_keys_key_hash"), "portal_keys", ["key_hash"], unique=True)
    op.create_index(op.f("ix_portal_keys_portal_id"), "portal_keys", ["portal_id"])
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("portal_id", sa.String(32), nullable=True))
        batch.create_foreign_key(op.f("fk_matches_portal_id_portals"), "portals", ["portal_id"], ["id"])
    op.create_index(op.f("ix_matches_portal_id_created_at_id"), "matches", ["portal_id", "created_at", "id"])
    op.drop_table("player_stats")
    op.create_table(
        "player_stats",
        sa.Column("portal_id", sa.String(32), nullable=False),
        sa.Column("player_ref", sa.String(128), nullable=False),
        sa.Column("played", sa.Integer(), nullable=False),
        sa.Column("won", sa.Integer(), nullable=False),
        sa.Column("forfeited", sa.Integer(), nullable=False),
        sa.Column("hands_won", sa.Integer(), nullable=False),
        sa.Column("best_margin", sa.Integer(), nullable=True),
        sa.Column("current_streak", sa.Integer(), nullable=False),
        sa.Column("longest_streak", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["portal_id"], ["portals.id"], ondelete="CASCADE", name=op.f("fk_player_stats_portal_id_portals")
        ),
        sa.PrimaryKeyConstraint("portal_id", "player_ref", name=op.f("pk_player_stats")),
    )


def downgrade() -> None:
    op.drop_table("player_stats")
    op.create_table(
        "player_stats",
        sa.Column("player_ref", sa.String(128), nullable=False),
        sa.Column("through_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("through_id", sa.String(32), nullable=False),
        sa.Column("figures", JSONDocument, nullable=False),
        sa.PrimaryKeyConstraint("player_ref", name=op.f("pk_player_stats")),
    )
    op.drop_index(op.f("ix_matches_portal_id_created_at_id"), table_name="matches")
    with op.batch_alter_table("matches") as batch:
        batch.drop_constraint(op.f("fk_matches_portal_id_portals"), type_="foreignkey")
        batch.drop_column("portal_id")
    op.drop_index(op.f("ix_portal_keys_portal_id"), table_name="portal_keys")
    op.drop_index(op.f("ix_portal_keys_key_hash"), table_name="portal_keys")
    op.drop_table("portal_keys")
    op.drop_index(op.f("ix_portals_name"), table_name="portals")
    op.drop_table("portals")
