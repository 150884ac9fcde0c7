"""Safe on the open internet: the autoplay queue, creator caps, stored fairness reports,
shared waiter slots and rate-limit counters, and the readiness write probe.

Live: yes — adds columns (nullable, or NOT NULL with a constant default: no table rewrite on
PostgreSQL 11 or later nor on SQLite) and new tables; writes to matches wait while its two indexes build.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

# Written out, not imported from api.store.tables: a migration is a snapshot.
JSONDocument = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("bots_due_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("autoplay_lease_until", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("creator_key", sa.String(64), nullable=True))
        batch.add_column(sa.Column("all_bots", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_index(op.f("ix_matches_bots_due_at"), "matches", ["bots_due_at"])
    op.create_index(op.f("ix_matches_creator_key_status"), "matches", ["creator_key", "status"])
    op.create_table(
        "fairness_reports",
        sa.Column("match_id", sa.String(32), nullable=False),
        sa.Column("report", JSONDocument, nullable=False),
        sa.Column("computed_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["match_id"], ["matches.id"], ondelete="CASCADE", name=op.f("fk_fairness_reports_match_id_matches")
        ),
        sa.PrimaryKeyConstraint("match_id", name=op.f("pk_fairness_reports")),
    )
    op.create_table(
        "waiter_slots",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("address_key", sa.String(64), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_waiter_slots")),
    )
    op.create_index(op.f("ix_waiter_slots_address_key_expires_at"), "waiter_slots", ["address_key", "expires_at"])
    op.create_index(op.f("ix_waiter_slots_expires_at"), "waiter_slots", ["expires_at"])
    op.create_table(
        "rate_limit_counters",
        sa.Column("key", sa.String(255), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("expires_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_rate_limit_counters")),
    )
    op.create_index(op.f("ix_rate_limit_counters_expires_at"), "rate_limit_counters", ["expires_at"])
    op.create_table(
        "health_probes",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("checked_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_health_probes")),
    )


def downgrade() -> None:
    op.drop_table("health_probes")
    op.drop_index(op.f("ix_rate_limit_counters_expires_at"), table_name="rate_limit_counters")
    op.drop_table("rate_limit_counters")
    op.drop_index(op.f("ix_waiter_slots_expires_at"), table_name="waiter_slots")
    op.drop_index(op.f("ix_waiter_slots_address_key_expires_at"), table_name="waiter_slots")
    op.drop_table("waiter_slots")
    op.drop_table("fairness_reports")
    op.drop_index(op.f("ix_matches_creator_key_status"), table_name="matches")
    op.drop_index(op.f("ix_matches_bots_due_at"), table_name="matches")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("all_bots")
        batch.drop_column("creator_key")
        batch.drop_column("autoplay_lease_until")
        batch.drop_column("bots_due_at")
