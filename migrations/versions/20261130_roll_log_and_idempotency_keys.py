"""roll log and idempotency keys

Revision ID: 0002_roll_log
Revises: 0001_initial
Create Date: 2026-11-30 08:56:34.554825
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0002_roll_log'
down_revision: str | None = '0001_initial'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('action_requests',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('match_id', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Integer(), nullable=False),
    sa.Column('key', sa.String(length=100), nullable=False),
    sa.Column('payload_hash', sa.String(length=64), nullable=False),
    sa.Column('response', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['match_id'], ['matches.id'], name=op.f('fk_action_requests_match_id_matches'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_action_requests_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_action_requests')),
    sa.UniqueConstraint('match_id', 'user_id', 'key', name=op.f('uq_action_requests_match_id'))
    )
    op.create_table('rolls',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('match_id', sa.Integer(), nullable=True),
    sa.Column('user_id', sa.Integer(), nullable=True),
    sa.Column('character_id', sa.Integer(), nullable=True),
    sa.Column('visibility', sa.String(length=16), nullable=False),
    sa.Column('purpose', sa.String(length=200), nullable=False),
    sa.Column('expression', sa.String(length=200), nullable=False),
    sa.Column('record', sa.JSON(), nullable=False),
    sa.Column('signature', sa.String(length=64), nullable=False),
    sa.Column('corrects_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'], name=op.f('fk_rolls_campaign_id_campaigns'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['character_id'], ['characters.id'], name=op.f('fk_rolls_character_id_characters'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['corrects_id'], ['rolls.id'], name=op.f('fk_rolls_corrects_id_rolls'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['match_id'], ['matches.id'], name=op.f('fk_rolls_match_id_matches'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_rolls_user_id_users'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_rolls'))
    )
    with op.batch_alter_table('rolls', schema=None) as batch_op:
        batch_op.create_index('ix_rolls_campaign_id_id', ['campaign_id', 'id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('rolls', schema=None) as batch_op:
        batch_op.drop_index('ix_rolls_campaign_id_id')

    op.drop_table('rolls')
    op.drop_table('action_requests')
