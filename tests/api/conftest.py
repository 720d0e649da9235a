"""API fixtures: a live server on loopback over each storage backend, with the offline model."""

from __future__ import annotations

from support.api_fixtures import api_settings, server
from support.employees_api import team
from support.skill_modules import forget_skill_modules

__all__ = ["api_settings", "forget_skill_modules", "server", "team"]
