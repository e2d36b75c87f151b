"""roll numbers: each roll has its number in its campaign (n°1 is the campaign's first roll),
shown to people instead of the instance-wide id; the rolls already there are numbered in
their campaign's order.

Revision ID: 0008_roll_numbers
Revises: 0007_chat
Create Date: 2026-12-06 09:00:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0008_roll_numbers'
down_revision: str | None = '0007_chat'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('rolls', schema=None) as batch_op:
        batch_op.add_column(sa.Column('number', sa.Integer(), nullable=True))
    # A campaign's rolls are numbered in the order they were made (their ids). One statement
    # on both databases (SQLite ≥ 3.33 and PostgreSQL read UPDATE … FROM).
    op.execute("""
        UPDATE rolls SET number = numbered.position
        FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY campaign_id ORDER BY id) AS position
              FROM rolls) AS numbered
        WHERE rolls.id = numbered.id
    """)
    with op.batch_alter_table('rolls', schema=None) as batch_op:
        batch_op.alter_column('number', existing_type=sa.Integer(), nullable=False)
        batch_op.create_index('ix_rolls_campaign_id_number', ['campaign_id', 'number'],
                              unique=True)


def downgrade() -> None:
    with op.batch_alter_table('rolls', schema=None) as batch_op:
        batch_op.drop_index('ix_rolls_campaign_id_number')
        batch_op.drop_column('number')
