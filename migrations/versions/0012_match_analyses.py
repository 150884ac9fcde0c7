"""The analysis after an ended match (issue 38): one row per match, the runner's claim until the
analysis is stored in it, and how many times one was claimed (a match whose analysis keeps
failing is given up after a few).

Live: yes — a new table only.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


JSONDocument = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "match_analyses",
        sa.Column("match_id", sa.String(32), nullable=False),
        sa.Column("analysis", JSONDocument, nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("computed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("attempts", sa.Integer(), server_default="0", nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], ondelete="CASCADE", name=op.f("fk_match_analyses_match_id_matches")
        ),
        sa.PrimaryKeyConstraint("match_id", name=op.f("pk_match_analyses")),
    )


def downgrade() -> None:
    op.drop_table("match_analyses")
