"""Alembic migrations of Interlock's tables; run them with :mod:`interlock.storage.migrate`."""
