"""The built-in offline chat model (deterministic, no API key) and its streaming machinery.

:class:`OfflineChatModel` answers a small set of requests (ideas, notes, the ``ask`` skill's
questions, "use <tool> with {json}") by reading the conversation, so Interlock can be tried and
tested without a provider. :class:`PlannedReplyChatModel` is the shared streaming machinery;
:class:`OfflineChatModel` and :class:`interlock.models.scripted.ScriptedChatModel` only decide
*what* to say.

Modules, in reading order (everything public is re-exported here):

* :mod:`~interlock.models.offline.streaming` - planned replies, streamed like a provider;
* :mod:`~interlock.models.offline.model` - :class:`OfflineChatModel`: what to do next;
* :mod:`~interlock.models.offline.intents` - reading the person's message (notes, ideas...);
* :mod:`~interlock.models.offline.reading` - reading the conversation (the results to answer);
* :mod:`~interlock.models.offline.suggestions` - options for a request for ideas;
* :mod:`~interlock.models.offline.skill_requests` - the ``ask`` skill and "use <tool> ...";
* :mod:`~interlock.models.offline.disclosure` - which skills can be / were loaded;
* :mod:`~interlock.models.offline.results` - what to say after tool results (and which note
  "delete note <text>" means);
* :mod:`~interlock.models.offline.skill_answers` - answers to ``ask_*`` and other tools;
* :mod:`~interlock.models.offline.tool_names`, :mod:`~interlock.models.offline.texts`,
  :mod:`~interlock.models.offline.wording` - tool names, fixed texts, text tidying.
"""

from interlock.models.offline.disclosure import loadable_skills, loaded_this_turn, skill_of
from interlock.models.offline.intents import Intent, IntentKind, parse_request
from interlock.models.offline.model import OFFLINE_DISPLAY_NAME, OfflineChatModel
from interlock.models.offline.results import parse_note_lines
from interlock.models.offline.skill_answers import action_for, describe_answer, summarise_result
from interlock.models.offline.skill_requests import (
    BadArguments,
    FixedReply,
    SkillRequest,
    ToolRequest,
    match_skill_request,
    parse_tool_command,
)
from interlock.models.offline.streaming import (
    OFFLINE_MODEL_NAME,
    PlannedCall,
    PlannedReply,
    PlannedReplyChatModel,
    split_args,
    split_tokens,
)
from interlock.models.offline.suggestions import suggestion_args, suggestion_options
from interlock.models.offline.texts import HELP_TEXT, LONG_TEXT
from interlock.models.offline.tool_names import (
    ASK_CHOICE,
    LOAD_SKILL,
    NOTES_ADD,
    NOTES_DELETE,
    NOTES_LIST,
    SUGGESTIONS,
)

__all__ = [
    "ASK_CHOICE",
    "HELP_TEXT",
    "LOAD_SKILL",
    "LONG_TEXT",
    "NOTES_ADD",
    "NOTES_DELETE",
    "NOTES_LIST",
    "OFFLINE_DISPLAY_NAME",
    "OFFLINE_MODEL_NAME",
    "SUGGESTIONS",
    "BadArguments",
    "FixedReply",
    "Intent",
    "IntentKind",
    "OfflineChatModel",
    "PlannedCall",
    "PlannedReply",
    "PlannedReplyChatModel",
    "SkillRequest",
    "ToolRequest",
    "action_for",
    "describe_answer",
    "loadable_skills",
    "loaded_this_turn",
    "match_skill_request",
    "parse_note_lines",
    "parse_request",
    "parse_tool_command",
    "skill_of",
    "split_args",
    "split_tokens",
    "suggestion_args",
    "suggestion_options",
    "summarise_result",
]
