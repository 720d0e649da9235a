"""The offline model names a built-in tool it has not been given by the title its skill
registers, so the two lists must agree."""

from __future__ import annotations

from interlock.models.offline.tool_names import BUILTIN_TITLES, DOTTED_NAMES, SKILL_WORDS
from interlock.tools import ToolRegistry


def test_the_offline_models_titles_are_the_registered_ones(builtin_registry: ToolRegistry) -> None:
    for provider_name, title in BUILTIN_TITLES.items():
        tool = builtin_registry.get(DOTTED_NAMES[provider_name])
        assert tool is not None, provider_name
        assert tool.title == title, provider_name


def test_every_built_in_skill_has_words_for_the_person(builtin_registry: ToolRegistry) -> None:
    skills = {tool.skill for tool in builtin_registry.tools() if tool.skill}
    assert skills == set(SKILL_WORDS)
