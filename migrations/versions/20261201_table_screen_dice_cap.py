"""table screen: a campaign's cap on the dice of one roll (NULL: the default, 100).

Revision ID: 0007_table_screen
Revises: 0006_trust
Create Date: 2026-12-01 13:25:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0007_table_screen'
down_revision: str | None = '0006_trust'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('campaigns', schema=None) as batch_op:
        batch_op.add_column(sa.Column('dice_cap', sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('campaigns', schema=None) as batch_op:
        batch_op.drop_column('dice_cap')
