"""Skills: folders of instructions (``SKILL.md``) and tools (``tools.py``, ``tools.yaml``).

The built-in skills live in the repository's ``skills/`` folder; more folders can be added
with the ``skills_path`` setting. :func:`load_catalog` loads them into a tool registry (with
the core ``load_skill`` tool) and returns a :class:`SkillCatalog`.
"""

from interlock.skills.catalog import SkillCatalog, catalog_from_folders, load_catalog, skill_out
from interlock.skills.loader import Skill, find_skill_folders, load_skills
from interlock.skills.manifest import Problem, SkillManifest, SlashCommand

__all__ = [
    "Problem",
    "Skill",
    "SkillCatalog",
    "SkillManifest",
    "SlashCommand",
    "catalog_from_folders",
    "find_skill_folders",
    "load_catalog",
    "load_skills",
    "skill_out",
]
