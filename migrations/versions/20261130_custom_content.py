"""custom content

Revision ID: 0003_custom_content
Revises: 0002_roll_log
Create Date: 2026-11-30 11:24:13.257429
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0003_custom_content'
down_revision: str | None = '0002_roll_log'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('custom_content',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=40), nullable=False),
    sa.Column('key', sa.String(length=64), nullable=False),
    sa.Column('name', sa.String(length=120), nullable=False),
    sa.Column('data', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_custom_content_campaign_id_campaigns'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_custom_content')),
    sa.UniqueConstraint('campaign_id', 'kind', 'key', name=op.f('uq_custom_content_campaign_id'))
    )
    with op.batch_alter_table('custom_content', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_custom_content_campaign_id'), ['campaign_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('custom_content', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_custom_content_campaign_id'))

    op.drop_table('custom_content')
