"""Alembic revision scripts, one file per revision."""
