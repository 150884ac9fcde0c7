"""Webhook secret rotation with an overlap: the secret a rotation replaced, and until when it
still signs deliveries beside the new one.

Live: yes — two nullable columns on webhooks (no table rewrite; a server of the release before
neither reads nor writes them, and rotates without an overlap as it did).

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("webhooks") as batch:
        batch.add_column(sa.Column("previous_secret", sa.String(64), nullable=True))
        batch.add_column(sa.Column("previous_secret_until", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("webhooks") as batch:
        batch.drop_column("previous_secret_until")
        batch.drop_column("previous_secret")
