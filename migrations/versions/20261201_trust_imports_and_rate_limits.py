"""trust imports and rate limits: the attempts counted by rate limits (failed logins,
registrations) replace login_failures (ephemeral rows, not carried over); instance settings;
imported rolls and events keep who the file named; an import in progress stays hidden.

Revision ID: 0006_trust
Revises: 0003_custom_content
Create Date: 2026-12-01 10:01:55.592040
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0006_trust'
down_revision: str | None = '0003_custom_content'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('attempts',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('key', sa.String(length=120), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_attempts'))
    )
    with op.batch_alter_table('attempts', schema=None) as batch_op:
        batch_op.create_index('ix_attempts_key_at', ['key', 'at'], unique=False)

    op.create_table('instance_settings',
    sa.Column('key', sa.String(length=64), nullable=False),
    sa.Column('value', sa.JSON(), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('key', name=op.f('pk_instance_settings'))
    )
    with op.batch_alter_table('login_failures', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_login_failures_key_at'))

    op.drop_table('login_failures')
    with op.batch_alter_table('campaigns', schema=None) as batch_op:
        batch_op.add_column(sa.Column('importing', sa.Boolean(), nullable=False,
                                      server_default=sa.false()))
        batch_op.add_column(sa.Column('imported_members', sa.JSON(), nullable=True))

    with op.batch_alter_table('match_events', schema=None) as batch_op:
        batch_op.add_column(sa.Column('imported', sa.JSON(), nullable=True))

    with op.batch_alter_table('rolls', schema=None) as batch_op:
        batch_op.add_column(sa.Column('imported', sa.JSON(), nullable=True))



def downgrade() -> None:
    with op.batch_alter_table('rolls', schema=None) as batch_op:
        batch_op.drop_column('imported')

    with op.batch_alter_table('match_events', schema=None) as batch_op:
        batch_op.drop_column('imported')

    with op.batch_alter_table('campaigns', schema=None) as batch_op:
        batch_op.drop_column('imported_members')
        batch_op.drop_column('importing')

    op.create_table('login_failures',
    sa.Column('id', sa.INTEGER(), nullable=False),
    sa.Column('key', sa.VARCHAR(length=120), nullable=False),
    sa.Column('at', sa.DATETIME(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_login_failures'))
    )
    with op.batch_alter_table('login_failures', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_login_failures_key_at'), ['key', 'at'], unique=False)

    op.drop_table('instance_settings')
    with op.batch_alter_table('attempts', schema=None) as batch_op:
        batch_op.drop_index('ix_attempts_key_at')

    op.drop_table('attempts')
