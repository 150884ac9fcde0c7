"""Turn clocks (deadline_at), rematches (rematch_of, reserved seats), seats by player_ref.

Live: yes — adds nullable columns that older servers never read or write, and indexes; on
PostgreSQL writes to matches and seats wait while those indexes build (seconds for a large table).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("deadline_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("rematch_of", sa.String(32), nullable=True))
    op.create_index(op.f("ix_matches_deadline_at"), "matches", ["deadline_at"])
    op.create_index(op.f("ix_matches_rematch_of"), "matches", ["rematch_of"], unique=True)
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("reserved_for", sa.String(64), nullable=True))
    op.create_index(op.f("ix_seats_player_ref"), "seats", ["player_ref"])


def downgrade() -> None:
    op.drop_index(op.f("ix_seats_player_ref"), table_name="seats")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("reserved_for")
    op.drop_index(op.f("ix_matches_rematch_of"), table_name="matches")
    op.drop_index(op.f("ix_matches_deadline_at"), table_name="matches")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("rematch_of")
        batch.drop_column("deadline_at")
