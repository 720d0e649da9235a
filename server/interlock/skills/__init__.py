"""Skills: folders of tools (``tools.py``) and instructions (``SKILL.md``) loaded at start-up.

The built-in skills live in the repository's ``skills/`` folder; more folders can be added
with the ``skills_path`` setting.
"""

from interlock.skills.loader import LoadedSkill, SkillError, load_skills

__all__ = ["LoadedSkill", "SkillError", "load_skills"]
