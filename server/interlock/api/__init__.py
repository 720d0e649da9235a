"""The HTTP API (FastAPI): one router per resource, dependencies in ``deps``."""
