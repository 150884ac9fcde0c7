"""Webhooks: a portal's endpoints, the outbox of deliveries, and the log of their attempts.

Live: yes — new tables only.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

# Written out, not imported from api.store.tables: a migration is a snapshot.
JSONDocument = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "webhooks",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("portal_id", sa.String(32), nullable=False),
        sa.Column("url", sa.String(2048), nullable=False),
        sa.Column("events", JSONDocument, nullable=False),
        sa.Column("secret", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["portal_id"], ["portals.id"], ondelete="CASCADE", name=op.f("fk_webhooks_portal_id_portals")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhooks")),
    )
    op.create_index(op.f("ix_webhooks_portal_id"), "webhooks", ["portal_id"])
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("webhook_id", sa.String(32), nullable=False),
        sa.Column("event_type", sa.String(32), nullable=False),
        sa.Column("match_id", sa.String(32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("round_attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("delivered_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("status IN ('pending', 'delivered', 'failed')", name=op.f("ck_webhook_deliveries_status")),
        sa.ForeignKeyConstraint(
            ["webhook_id"],
            ["webhooks.id"],
            ondelete="CASCADE",
            name=op.f("fk_webhook_deliveries_webhook_id_webhooks"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_deliveries")),
    )
    op.create_index(
        op.f("ix_webhook_deliveries_status_next_attempt_at"), "webhook_deliveries", ["status", "next_attempt_at"]
    )
    op.create_index(
        op.f("ix_webhook_deliveries_webhook_id_created_at_id"),
        "webhook_deliveries",
        ["webhook_id", "created_at", "id"],
    )
    op.create_table(
        "webhook_attempts",
        sa.Column("delivery_id", sa.String(32), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("attempted_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("duration_ms", sa.Integer(), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=True),
        sa.Column("error", sa.String(512), nullable=True),
        sa.ForeignKeyConstraint(
            ["delivery_id"],
            ["webhook_deliveries.id"],
            ondelete="CASCADE",
            name=op.f("fk_webhook_attempts_delivery_id_webhook_deliveries"),
        ),
        sa.PrimaryKeyConstraint("delivery_id", "number", name=op.f("pk_webhook_attempts")),
    )


def downgrade() -> None:
    op.drop_table("webhook_attempts")
    op.drop_index(op.f("ix_webhook_deliveries_webhook_id_created_at_id"), table_name="webhook_deliveries")
    op.drop_index(op.f("ix_webhook_deliveries_status_next_attempt_at"), table_name="webhook_deliveries")
    op.drop_table("webhook_deliveries")
    op.drop_index(op.f("ix_webhooks_portal_id"), table_name="webhooks")
    op.drop_table("webhooks")
