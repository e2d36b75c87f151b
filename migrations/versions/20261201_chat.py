"""chat: a campaign's chat messages (to the table, to the GM, to one member), inline rolls
linked to the signed roll log.

Revision ID: 0007_chat
Revises: 0007_table_screen
Create Date: 2026-12-01 13:10:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0007_chat'
down_revision: str | None = '0007_table_screen'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('chat_messages',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('campaign_id', sa.Integer(), nullable=False),
    sa.Column('match_id', sa.Integer(), nullable=True),
    sa.Column('user_id', sa.Integer(), nullable=True),
    sa.Column('audience', sa.String(length=16), nullable=False),
    sa.Column('recipient_id', sa.Integer(), nullable=True),
    sa.Column('body', sa.Text(), nullable=False),
    sa.Column('roll_id', sa.Integer(), nullable=True),
    sa.Column('imported', sa.JSON(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['campaign_id'], ['campaigns.id'],
                            name=op.f('fk_chat_messages_campaign_id_campaigns'),
                            ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['match_id'], ['matches.id'],
                            name=op.f('fk_chat_messages_match_id_matches'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['recipient_id'], ['users.id'],
                            name=op.f('fk_chat_messages_recipient_id_users'),
                            ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['roll_id'], ['rolls.id'],
                            name=op.f('fk_chat_messages_roll_id_rolls'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'],
                            name=op.f('fk_chat_messages_user_id_users'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_chat_messages'))
    )
    with op.batch_alter_table('chat_messages', schema=None) as batch_op:
        batch_op.create_index('ix_chat_messages_campaign_id_id', ['campaign_id', 'id'],
                              unique=False)


def downgrade() -> None:
    with op.batch_alter_table('chat_messages', schema=None) as batch_op:
        batch_op.drop_index('ix_chat_messages_campaign_id_id')
    op.drop_table('chat_messages')
