"""The built-in offline chat model: deterministic, no API key, streams token by token.

:class:`OfflineChatModel` answers a small set of requests (ideas, notes, the ``ask`` skill's
questions, "use <tool> with {json}") by reading the conversation, so Interlock can be tried and
tested without a provider. It loads skills with ``load_skill`` when a tool it needs is not bound
yet (progressive disclosure). This module decides the plan; reading requests
(:mod:`~interlock.models.offline.intents`) and the conversation
(:mod:`~interlock.models.offline.reading`), the words said after results
(:mod:`~interlock.models.offline.results`) and streaming
(:mod:`~interlock.models.offline.streaming`) live beside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)
from typing_extensions import override

from interlock.models.offline.disclosure import (
    actions_off,
    loadable_skills,
    loaded_this_turn,
    skill_of,
)
from interlock.models.offline.intents import Intent, parse_request
from interlock.models.offline.reading import (
    is_plain_success,
    last_human_text,
    trailing_tool_turn,
)
from interlock.models.offline.results import (
    CancelKey,
    cancelled_key,
    describe_result,
    note_to_delete,
    said_together,
)
from interlock.models.offline.skill_requests import ToolRequest
from interlock.models.offline.streaming import (
    OFFLINE_MODEL_NAME,
    PlannedCall,
    PlannedReply,
    PlannedReplyChatModel,
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
    announce,
    skill_words,
    skills_words,
    spoken_name,
)
from interlock.models.offline.totals import HistoryTotals

OFFLINE_DISPLAY_NAME = "interlock-offline (built-in, no API key)"
"""Name shown to people (``describe_model``) when the offline model answers."""


@dataclass(frozen=True)
class _Turn:
    """What the model knows about skills in this step.

    Attributes:
        loadable: Skills the system prompt offers to load (``{name: description}``).
        loaded: Skills ``load_skill`` was already called for since the last human message.
        actions_off: The person turned AI actions off for this employee (the system prompt
            says so): tools that change things are not offered.
    """

    loadable: dict[str, str] = field(default_factory=dict)
    loaded: frozenset[str] = frozenset()
    actions_off: bool = False


@dataclass(frozen=True)
class _Step:
    """One call the model wants to make, with what to say and a fallback tool."""

    lead: str
    call: PlannedCall
    skill: str | None = None
    fallback: tuple[str, PlannedCall] | None = None
    said: str | None = None
    """The tool's name as the person wrote it ("use web_search.fetch with ..."), if so."""


class OfflineChatModel(PlannedReplyChatModel):
    """Interlock's built-in, deterministic, labelled-offline chat model.

    It reads the conversation and answers a few request kinds, calling only tools that are
    bound (built-ins ``suggestions``, ``notes_list``, ``notes_add``, ``notes_delete``, the ask
    skill's ``ask_choice``, ``ask_form``, ``ask_confirm``, and any tool named in "use <tool> with
    {json}"):

    * after tool results (the trailing tool messages): a choice (``The person chose: X``) gets
      "Great choice: **X**."; a rejection quotes the reason and says nothing was done; an
      ``Error [code]: ...`` is explained; a note listing that answers "delete note <text>" leads
      to ``notes_delete`` with the matching id (or says no note matched); the person's answer to
      ``ask_form`` / ``ask_choice`` / ``ask_confirm`` is acknowledged ("Thanks, Ada! ...", "You
      picked: A.", "Confirmed: X." / "Not confirmed, nothing was done."); a successful
      ``load_skill`` result makes it plan the last human message again with the now-bound
      tools; anything else is summarised ("<tool> returned: <first 500 characters>");
    * otherwise, from the last human message (case-insensitive): ideas / suggestions / names /
      options / "help me choose" / "pick" → ``suggestions`` with 3-4 options; "add a note X",
      "note: X", "remember X" → ``notes_add``; "delete note 3" → ``notes_delete``; "delete note
      buy milk" → ``notes_list`` first; "what/list/show notes" → ``notes_list``; "write a long
      answer" / "long story" → a long text; "add a note X and delete note N" → two parallel
      calls; "ask me to choose between A, B and C" / "ask me which of A, B or C" →
      ``ask_choice`` (``multiple`` with "several of" / "any of" / "which ones"); "ask me for my
      details" / "ask me a few questions" / "sign me up" / "form" → ``ask_form`` with a fixed
      form; "ask me to confirm X" / "confirm X" → ``ask_confirm``; "use <tool.name> with {json}"
      / "call <tool.name> {json}" → that tool; anything else → what it can do.

    Progressive disclosure: when the tool a request needs is not bound but ``load_skill`` is,
    and the system prompt lists the tool's skill under "Skills you can load", it first calls
    ``load_skill {"name": <skill>}`` (at most once per skill and human message). When neither
    is possible it says it cannot do that here ("ask me to choose ..." falls back to a bound
    ``suggestions`` tool).

    Call ids are ``call_<n>``, numbered after the tool calls already in the history.

    Args:
        token_delay_s: Pause between streamed chunks.
        first_token_delay_s: Pause before the first chunk.
    """

    @property
    @override
    def _llm_type(self) -> str:
        return OFFLINE_MODEL_NAME

    def _tools_enabled(self) -> set[str]:
        return set() if self.tool_choice == "none" else set(self.bound_tool_names)

    def _spoken(self, name: str, said: str | None = None) -> str:
        """The tool named for the person: its title, else the name they wrote, else dotted."""
        if said and name not in self.tool_titles:
            return f"`{said}`"
        return spoken_name(name, self.tool_titles)

    def _switched_off(self, name: str, turn: _Turn) -> bool:
        """Whether ``name`` is unavailable because the person turned AI actions off."""
        return turn.actions_off and name in self.action_tools

    def _unavailable(self, name: str, turn: _Turn, said: str | None = None) -> str:
        if self._switched_off(name, turn):
            return (
                f"I would use {self._spoken(name, said)} for that, but AI actions are off for "
                "this employee, so I cannot change anything now. You can turn them on under "
                "Permissions."
            )
        return (
            f"I would use {self._spoken(name, said)} for that, but this employee cannot use it, "
            "so I cannot do it here."
        )

    @override
    def plan_reply(self, messages: Sequence[BaseMessage], totals: HistoryTotals) -> PlannedReply:
        """Decide the reply from the conversation (see the class docstring).

        Args:
            messages: The conversation so far.
            totals: Its totals: the messages apart from the system ones, and those.

        Returns:
            The planned text and tool calls.
        """
        conversation = totals.conversation
        turn = _Turn(
            loadable_skills(totals.system),
            loaded_this_turn(conversation),
            actions_off(totals.system),
        )
        ai_message, results = trailing_tool_turn(conversation)
        if results:
            return self._after_results(conversation, ai_message, results, turn)
        if not conversation:
            return PlannedReply(HELP_TEXT)
        if not isinstance(conversation[-1], HumanMessage):
            return PlannedReply("I have nothing to add yet — tell me what you would like to do.")
        return self._for_request(conversation[-1].text, turn)

    # -- new requests --------------------------------------------------------------------

    def _for_request(self, request: str, turn: _Turn) -> PlannedReply:
        intents = parse_request(request)
        if len(intents) > 1:
            return self._compound(intents, turn)
        intent = intents[0]
        if intent.kind == "long":
            return PlannedReply(LONG_TEXT)
        if intent.kind == "help":
            return PlannedReply(HELP_TEXT)
        if intent.kind == "say":
            if intent.bad is not None:  # the tool named by its title when known
                return PlannedReply(
                    intent.bad.text(self._spoken(intent.bad.name, intent.bad.dotted))
                )
            return PlannedReply(intent.text)
        if intent.kind == "ask":
            return PlannedReply(
                "Which note should I delete? Give its number (“delete note 2”) or its text."
                if intent.text == "delete"
                else "What should the note say? For example: “add a note buy milk”."
            )
        return self._offer(self._step_for(intent), turn)

    def _skill_to_load(self, step: _Step, turn: _Turn) -> str | None:
        """The skill to load before ``step`` can run, when loading it is possible."""
        if LOAD_SKILL not in self._tools_enabled():
            return None
        skill = step.skill or skill_of(step.call.name, turn.loadable)
        if skill is None or skill not in turn.loadable or skill in turn.loaded:
            return None
        return skill

    def _offer(self, step: _Step, turn: _Turn) -> PlannedReply:
        enabled = self._tools_enabled()
        if step.call.name in enabled:
            return PlannedReply(step.lead, (step.call,))
        skill = self._skill_to_load(step, turn)
        if skill is not None:
            return PlannedReply(
                f"I'll load {skill_words(skill)} first.",
                (PlannedCall(LOAD_SKILL, {"name": skill}),),
            )
        if step.fallback is not None and step.fallback[1].name in enabled:
            return PlannedReply(step.fallback[0], (step.fallback[1],))
        loaded = step.skill or skill_of(step.call.name, turn.loadable)
        if loaded is not None and loaded in turn.loaded:
            return PlannedReply(
                f"I loaded {skill_words(loaded)}, but {self._spoken(step.call.name, step.said)} "
                "is still not available in this conversation, so I cannot do it here."
            )
        return PlannedReply(self._unavailable(step.call.name, turn, step.said))

    def _step_for(self, intent: Intent) -> _Step:
        if intent.kind == "tool" and intent.request is not None:
            return self._request_step(intent.request)
        lead, call = self._call_for(intent)
        return _Step(lead, call)

    def _request_step(self, request: ToolRequest) -> _Step:
        call = PlannedCall(request.name, request.args)
        fallback: tuple[str, PlannedCall] | None = None
        options = request.args.get("options")
        if request.name == ASK_CHOICE and not request.args.get("multiple") and options:
            question = str(request.args.get("question", "Which one do you choose?"))
            args = suggestion_args(list(options)[:6], question, self.tool_parameters(SUGGESTIONS))
            fallback = ("Pick the one you like.", PlannedCall(SUGGESTIONS, args))
        # Named by its title when bound (the person reads this), else as they wrote it.
        lead = announce(request.name, self.tool_titles, request.dotted)
        return _Step(lead, call, request.skill, fallback, request.dotted)

    def _call_for(self, intent: Intent) -> tuple[str, PlannedCall]:
        if intent.kind == "suggest":
            options, question = suggestion_options(intent.text)
            args = suggestion_args(options, question, self.tool_parameters(SUGGESTIONS))
            return "Here are a few ideas — pick the one you like.", PlannedCall(SUGGESTIONS, args)
        if intent.kind == "add":
            return "I'll add that note.", PlannedCall(NOTES_ADD, {"text": intent.text})
        if intent.kind == "delete_id":
            return (
                f"I'll delete note #{intent.note_id}.",
                PlannedCall(NOTES_DELETE, {"id": intent.note_id}),
            )
        if intent.kind == "delete_text":
            return (
                f"Let me find the note “{intent.text}” first.",
                PlannedCall(NOTES_LIST, {}),
            )
        return "Let me look at your notes.", PlannedCall(NOTES_LIST, {})

    def _compound(self, intents: list[Intent], turn: _Turn) -> PlannedReply:
        leads: list[str] = []
        calls: list[PlannedCall] = []
        missing: list[str] = []
        switched_off = False
        to_load: list[str] = []
        for intent in intents:
            if intent.kind == "ask":
                continue
            step = self._step_for(intent)
            if step.call.name in self._tools_enabled():
                leads.append(step.lead)
                calls.append(step.call)
            elif (skill := self._skill_to_load(step, turn)) is not None:
                if skill not in to_load:
                    to_load.append(skill)
            elif (spoken := self._spoken(step.call.name, step.said)) not in missing:
                missing.append(spoken)
                switched_off = switched_off or self._switched_off(step.call.name, turn)
        if to_load:
            return PlannedReply(
                f"I'll load {skills_words(to_load)} first.",
                tuple(PlannedCall(LOAD_SKILL, {"name": s}) for s in to_load),
            )
        text = " ".join(leads)
        if missing:
            why = "AI actions are off for this employee" if switched_off else "not available here"
            text = f"{text} (I cannot use {', '.join(missing)}: {why}.)".strip()
        return PlannedReply(text, tuple(calls))

    # -- after tool results --------------------------------------------------------------

    def _after_results(
        self,
        messages: Sequence[BaseMessage],
        ai_message: AIMessage | None,
        results: list[ToolMessage],
        turn: _Turn,
    ) -> PlannedReply:
        calls_by_id: dict[str, tuple[str, dict[str, Any]]] = {}
        if ai_message is not None:
            for tool_call in ai_message.tool_calls:
                if tool_call["id"]:
                    calls_by_id[tool_call["id"]] = (tool_call["name"], tool_call["args"])
            for bad in ai_message.invalid_tool_calls:
                if bad["id"]:
                    calls_by_id[bad["id"]] = (bad["name"] or "", {})
        named = [
            (*calls_by_id.get(result.tool_call_id, (result.name or "", {})), result)
            for result in results
        ]
        if all(name == LOAD_SKILL and is_plain_success(r) for name, _, r in named):
            # The skill is active now and its tools are bound: plan the request again.
            return self._for_request(last_human_text(messages), turn)
        delete_targets = [
            i.text for i in parse_request(last_human_text(messages)) if i.kind == "delete_text"
        ]
        paragraphs: list[tuple[str, CancelKey | None]] = []
        follow_ups: list[PlannedCall] = []
        for name, args, result in named:
            if name == NOTES_LIST and delete_targets and is_plain_success(result):
                target = delete_targets.pop(0)
                text, call = self._delete_matching(target, result.text, turn)
                paragraphs.append((text, None))
                if call is not None:
                    follow_ups.append(call)
                continue
            spoken = self._spoken(name)
            paragraphs.append(
                (
                    describe_result(name, args, result, spoken),
                    cancelled_key(name, args, result, spoken),
                )
            )
        return PlannedReply("\n\n".join(said_together(paragraphs)), tuple(follow_ups))

    def _delete_matching(
        self, target: str, listing: str, turn: _Turn
    ) -> tuple[str, PlannedCall | None]:
        found = note_to_delete(target, listing)
        if isinstance(found, str):
            return found, None
        note_id, note_text = found
        if NOTES_DELETE not in self._tools_enabled():
            return f"Note #{note_id} matches. {self._unavailable(NOTES_DELETE, turn)}", None
        return (
            f"Found it: note #{note_id} “{note_text}”. I'll delete it.",
            PlannedCall(NOTES_DELETE, {"id": note_id}),
        )
