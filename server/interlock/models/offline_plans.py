"""Compatibility: the skill-aware parts of the offline model, under their old module name.

They now live in the :mod:`interlock.models.offline` package (``tool_names``, ``disclosure``,
``skill_requests``, ``skill_answers``, ``wording``); import from there in new code.
"""

from interlock.models.offline.disclosure import loadable_skills, loaded_this_turn, skill_of
from interlock.models.offline.skill_answers import (
    RESULT_SUMMARY_CHARS,
    action_for,
    describe_answer,
    summarise_result,
)
from interlock.models.offline.skill_requests import (
    FORM_FIELDS,
    FORM_TITLE,
    MAX_CHOICE_OPTIONS,
    FixedReply,
    SkillRequest,
    ToolRequest,
    form_request,
    match_skill_request,
    parse_tool_command,
)
from interlock.models.offline.tool_names import (
    ASK_CHOICE,
    ASK_CONFIRM,
    ASK_FORM,
    LOAD_SKILL,
    TOOL_SKILLS,
)
from interlock.models.offline.wording import clean_text

__all__ = [
    "ASK_CHOICE",
    "ASK_CONFIRM",
    "ASK_FORM",
    "FORM_FIELDS",
    "FORM_TITLE",
    "LOAD_SKILL",
    "MAX_CHOICE_OPTIONS",
    "RESULT_SUMMARY_CHARS",
    "TOOL_SKILLS",
    "FixedReply",
    "SkillRequest",
    "ToolRequest",
    "action_for",
    "clean_text",
    "describe_answer",
    "form_request",
    "loadable_skills",
    "loaded_this_turn",
    "match_skill_request",
    "parse_tool_command",
    "skill_of",
    "summarise_result",
]
