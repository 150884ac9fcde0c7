"""Hash-chained events and idempotency keys.

Live: no — servers of 0001 would go on appending events without their hashes (the columns'
default, 64 zeros), breaking the chain of every match they write: stop them first.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

GENESIS = "0" * 64
# Written out, not imported from api.store.tables: a migration is a snapshot.
JSONDocument = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("prev_hash", sa.String(64), nullable=False, server_default=GENESIS))
        batch.add_column(sa.Column("hash", sa.String(64), nullable=False, server_default=GENESIS))
    with op.batch_alter_table("matches") as batch:
        batch.add_column(sa.Column("last_hash", sa.String(64), nullable=False, server_default=GENESIS))
    op.create_table(
        "idempotency_keys",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("key", sa.String(255), nullable=False),
        sa.Column("match_id", sa.String(32), nullable=False),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("response_status", sa.Integer(), nullable=True),
        sa.Column("response_body", JSONDocument, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("state IN ('in_flight', 'done')", name=op.f("ck_idempotency_keys_state")),
        sa.PrimaryKeyConstraint("token_hash", "key", name=op.f("pk_idempotency_keys")),
    )
    op.create_index(op.f("ix_idempotency_keys_created_at"), "idempotency_keys", ["created_at"])


def downgrade() -> None:
    op.drop_index(op.f("ix_idempotency_keys_created_at"), table_name="idempotency_keys")
    op.drop_table("idempotency_keys")
    with op.batch_alter_table("matches") as batch:
        batch.drop_column("last_hash")
    with op.batch_alter_table("events") as batch:
        batch.drop_column("hash")
        batch.drop_column("prev_hash")
