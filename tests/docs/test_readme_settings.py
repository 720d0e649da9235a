"""The README's settings table names every setting, and only settings that exist."""

from __future__ import annotations

import re
from pathlib import Path

from interlock.settings import Settings

README = Path(__file__).resolve().parents[2] / "README.md"
ROW = re.compile(r"^\| `(?:INTERLOCK_)?([A-Z0-9_]+)` \|", re.MULTILINE)
"""A row names a setting by its variable: ``INTERLOCK_`` and the field's name, or the variable
a field reads without the prefix (``OPENAI_API_KEY``: :attr:`Settings.openai_api_key`)."""


def _table_names() -> list[str]:
    return [name.lower() for name in ROW.findall(README.read_text(encoding="utf-8"))]


def test_every_setting_has_a_row_in_the_readme_table() -> None:
    missing = sorted(set(Settings.model_fields) - set(_table_names()))
    assert missing == [], f"settings missing from README's table: {missing}"


def test_every_row_of_the_readme_table_is_a_setting() -> None:
    names = _table_names()
    unknown = sorted(set(names) - set(Settings.model_fields))
    assert unknown == [], f"README's table names settings that do not exist: {unknown}"
    assert len(names) == len(set(names)), "a setting has two rows"
