"""Player statistics folded once per ended match: a cursor and the figures so far.

Live: yes — a new table and an index; writes to matches wait while the index builds.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

# Written out, not imported from api.store.tables: a migration is a snapshot.
JSONDocument = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "player_stats",
        sa.Column("player_ref", sa.String(128), nullable=False),
        sa.Column("through_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("through_id", sa.String(32), nullable=False),
        sa.Column("figures", JSONDocument, nullable=False),
        sa.PrimaryKeyConstraint("player_ref", name=op.f("pk_player_stats")),
    )
    op.create_index(op.f("ix_matches_status_updated_at_id"), "matches", ["status", "updated_at", "id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_matches_status_updated_at_id"), table_name="matches")
    op.drop_table("player_stats")
