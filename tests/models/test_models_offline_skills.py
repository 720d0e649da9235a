"""The offline model and skills: progressive disclosure, the ask skill and the generic tool rule."""

from __future__ import annotations

from typing import Any, Literal

import jsonschema
import pytest
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from interlock.models import OfflineChatModel
from interlock.models.offline_plans import FORM_FIELDS, loadable_skills, skill_of

ASK_SCHEMAS: dict[str, dict[str, Any]] = {
    "ask_choice": {
        "type": "object",
        "properties": {
            "question": {"type": "string", "minLength": 1},
            "options": {
                "type": "array",
                "items": {"type": "string", "minLength": 1},
                "minItems": 2,
                "maxItems": 10,
            },
            "multiple": {"type": "boolean"},
        },
        "required": ["question", "options"],
        "additionalProperties": False,
    },
    "ask_form": {
        "type": "object",
        "properties": {"title": {"type": "string"}, "fields": {"type": "object"}},
        "required": ["title", "fields"],
        "additionalProperties": False,
    },
    "ask_confirm": {
        "type": "object",
        "properties": {"summary": {"type": "string", "minLength": 1}},
        "required": ["summary"],
        "additionalProperties": False,
    },
}
OTHER_SCHEMAS: dict[str, dict[str, Any]] = {
    "load_skill": {
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
        "additionalProperties": False,
    },
    "suggestions": {
        "type": "object",
        "properties": {"options": {"type": "array", "items": {"type": "string"}}},
        "required": ["options"],
    },
    "notes_add": {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    },
    "notes_delete": {
        "type": "object",
        "properties": {"id": {"type": "integer"}},
        "required": ["id"],
    },
    "notes_list": {"type": "object", "properties": {}},
    "greet_hello": {
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
    },
    "web_search_fetch": {
        "type": "object",
        "properties": {"url": {"type": "string"}},
        "required": ["url"],
    },
}
SCHEMAS = {**ASK_SCHEMAS, **OTHER_SCHEMAS}
Status = Literal["success", "error"]

SKILLS_PROMPT = SystemMessage(
    "You are Ada, a helpful assistant.\n\n"
    "Skills you can load:\n"
    "- ask: Ask the person structured questions (choices, forms, confirmations).\n"
    "- greet: Say hello to people.\n"
    "\n"
    "Use load_skill to load one."
)
PLAIN_PROMPT = SystemMessage("You are Ada, a helpful assistant.")


def _model(*names: str, titles: dict[str, str] | None = None) -> Any:
    specs = [
        {"type": "function", "function": {"name": n, "description": n, "parameters": SCHEMAS[n]}}
        for n in names
    ]
    return OfflineChatModel().bind_tools(specs, tool_titles=titles)


GREET_TITLE = {"greet_hello": "Greet someone"}


ALL_ASK = ("ask_choice", "ask_form", "ask_confirm")


async def _reply(model: Any, messages: list[BaseMessage]) -> AIMessageChunk:
    merged: AIMessageChunk | None = None
    async for chunk in model.astream(messages):
        assert isinstance(chunk, AIMessageChunk)
        merged = chunk if merged is None else merged + chunk
    assert merged is not None
    return merged


def _calls(message: AIMessage) -> list[tuple[str, dict[str, Any]]]:
    for call in message.tool_calls:
        jsonschema.validate(call["args"], SCHEMAS[call["name"]])
    return [(call["name"], call["args"]) for call in message.tool_calls]


async def _ask(text: str, *tools: str, system: SystemMessage = PLAIN_PROMPT) -> AIMessageChunk:
    return await _reply(_model(*tools), [system, HumanMessage(text)])


def _after(
    request: str,
    name: str,
    args: dict[str, Any],
    content: str,
    status: Status = "success",
    *,
    ai_text: str = "",
) -> list[BaseMessage]:
    """History: request, an AI message with one call, then its result."""
    return [
        SKILLS_PROMPT,
        HumanMessage(request),
        AIMessage(content=ai_text, tool_calls=[{"id": "call_1", "name": name, "args": args}]),
        ToolMessage(content=content, tool_call_id="call_1", status=status),
    ]


# -- ask_choice -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "ask me to choose between tea, coffee and juice",
        "Ask me which of tea, coffee or juice",
        "please ask me to choose between tea, coffee, and juice.",
        "ASK ME WHICH OF tea, coffee or juice I prefer?",
        "ask me to pick one of tea, coffee or juice",
    ],
)
async def test_ask_me_to_choose_calls_ask_choice_with_the_listed_options(text: str) -> None:
    reply = await _ask(text, *ALL_ASK)

    ((name, args),) = _calls(reply)
    assert name == "ask_choice"
    assert args["options"] == ["tea", "coffee", "juice"]
    assert args["multiple"] is False
    assert args["question"]


@pytest.mark.parametrize(
    "text",
    [
        "ask me to choose several of tea, coffee and juice",
        "ask me to pick any of tea, coffee or juice",
        "ask me which ones of tea, coffee and juice",
        "ask me to choose one or more of tea, coffee and juice",
    ],
)
async def test_several_any_or_which_ones_allow_multiple_answers(text: str) -> None:
    reply = await _ask(text, *ALL_ASK)

    assert _calls(reply) == [
        (
            "ask_choice",
            {
                "question": "Which ones do you choose?",
                "options": ["tea", "coffee", "juice"],
                "multiple": True,
            },
        )
    ]


async def test_a_choice_without_options_asks_for_them() -> None:
    reply = await _ask("ask me to choose", *ALL_ASK)

    assert reply.tool_calls == []
    assert "Which options" in reply.text


async def test_help_me_choose_still_calls_suggestions() -> None:
    reply = await _ask("help me choose between tea, coffee or juice", "suggestions", *ALL_ASK)

    assert _calls(reply) == [("suggestions", {"options": ["tea", "coffee", "juice"]})]


async def test_a_choice_falls_back_to_suggestions_when_ask_cannot_be_used() -> None:
    reply = await _ask("ask me to choose between tea or coffee", "suggestions")

    assert _calls(reply) == [("suggestions", {"options": ["tea", "coffee"]})]


# -- ask_form ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "ask me for my details",
        "Please sign me up for the newsletter",
        "ask me a few questions",
        "show me a form",
        "Form please",
    ],
)
async def test_details_form_and_sign_up_requests_call_ask_form(text: str) -> None:
    reply = await _ask(text, *ALL_ASK)

    ((name, args),) = _calls(reply)
    assert name == "ask_form"
    assert args["title"] == "Your details"
    assert args["fields"] == FORM_FIELDS
    assert args["fields"]["required"] == ["name", "email"]
    assert args["fields"]["properties"]["plan"] == {
        "type": "string",
        "enum": ["free", "pro"],
        "title": "Plan",
    }
    jsonschema.Draft202012Validator.check_schema(args["fields"])


async def test_a_note_about_a_form_is_still_a_note() -> None:
    reply = await _ask("add a note fill in the form", "notes_add", *ALL_ASK)

    assert _calls(reply) == [("notes_add", {"text": "fill in the form"})]


# -- ask_confirm ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "summary"),
    [
        ("ask me to confirm the order of two pizzas", "the order of two pizzas"),
        ("Confirm deleting all my notes.", "deleting all my notes"),
        ("can you ask me to confirm that we ship today?", "we ship today"),
        ('confirm: "book the 9:15 train"', "book the 9:15 train"),
    ],
)
async def test_confirm_requests_call_ask_confirm_with_the_summary(text: str, summary: str) -> None:
    reply = await _ask(text, *ALL_ASK)

    assert _calls(reply) == [("ask_confirm", {"summary": summary})]


async def test_confirm_without_a_summary_asks_what_to_confirm() -> None:
    reply = await _ask("confirm", *ALL_ASK)

    assert reply.tool_calls == []
    assert "What should I ask you to confirm?" in reply.text


# -- progressive disclosure -------------------------------------------------------------------


def test_loadable_skills_are_read_from_the_system_prompt() -> None:
    assert loadable_skills([SKILLS_PROMPT, HumanMessage("- nope: not a skill")]) == {
        "ask": "Ask the person structured questions (choices, forms, confirmations).",
        "greet": "Say hello to people.",
    }
    assert loadable_skills([PLAIN_PROMPT]) == {}
    blank_first = SystemMessage("Intro\nSkills you can load:\n\n- `notes`: Keep notes.\nEnd")
    assert loadable_skills([blank_first]) == {"notes": "Keep notes."}
    dashes = SystemMessage("Skills you can load\n- **ask** — Ask questions.\n- greet\n")
    assert loadable_skills([dashes]) == {"ask": "Ask questions.", "greet": ""}


def test_skills_of_tools_come_from_the_table_or_a_loadable_prefix() -> None:
    assert skill_of("ask_form") == "ask"
    assert skill_of("notes_list") == "notes"
    assert skill_of("suggestions") == "suggestions"
    assert skill_of("my_skill_run", ["my", "my_skill"]) == "my_skill"
    assert skill_of("weather_now") is None


async def test_an_unbound_ask_tool_is_loaded_first_then_called() -> None:
    request = HumanMessage("ask me for my details")
    first = await _reply(_model("load_skill", "notes_list"), [SKILLS_PROMPT, request])

    assert _calls(first) == [("load_skill", {"name": "ask"})]
    assert first.tool_calls[0]["id"] == "call_1"
    assert "ask" in first.text

    history: list[BaseMessage] = [
        SKILLS_PROMPT,
        request,
        AIMessage(content=first.text, tool_calls=first.tool_calls),
        ToolMessage(content="Loaded the ask skill.", tool_call_id="call_1"),
    ]
    second = await _reply(_model("load_skill", "notes_list", *ALL_ASK), history)

    ((name, args),) = _calls(second)
    assert name == "ask_form"
    assert args["fields"] == FORM_FIELDS
    assert second.tool_calls[0]["id"] == "call_2"


async def test_each_ask_mapping_loads_the_ask_skill_first() -> None:
    for text in (
        "ask me to choose between a and b",
        "ask me to confirm x",
        "sign me up",
    ):
        reply = await _ask(text, "load_skill", system=SKILLS_PROMPT)
        assert _calls(reply) == [("load_skill", {"name": "ask"})], text


async def test_a_skill_is_loaded_at_most_once_per_request() -> None:
    history = _after("ask me to confirm x", "load_skill", {"name": "ask"}, "Loaded.")

    reply = await _reply(_model("load_skill"), history)

    assert reply.tool_calls == []
    assert "I loaded the `ask` skill" in reply.text
    assert "`ask.confirm`" in reply.text and "ask_confirm" not in reply.text


async def test_a_skill_that_is_not_loadable_is_not_loaded() -> None:
    reply = await _ask("ask me to confirm x", "load_skill", system=PLAIN_PROMPT)

    assert reply.tool_calls == []
    assert "I would use `ask.confirm` for that" in reply.text
    assert "cannot do it here" in reply.text


async def test_without_load_skill_the_model_explains_it_cannot() -> None:
    reply = await _ask("ask me for my details", "notes_list", system=SKILLS_PROMPT)

    assert reply.tool_calls == []
    assert "I would use `ask.form` for that" in reply.text
    assert "cannot do it here" in reply.text


async def test_a_failed_load_is_explained() -> None:
    error = "Error [not_found]: There is no skill 'ask' to load."
    history = _after("ask me for my details", "load_skill", {"name": "ask"}, error, "error")

    reply = await _reply(_model("load_skill"), history)

    assert reply.tool_calls == []
    assert "could not load the `ask` skill" in reply.text
    assert "not_found" not in reply.text  # the code is for programs, not the person


async def test_unloaded_notes_are_loaded_before_a_compound_request() -> None:
    prompt = SystemMessage("Skills you can load:\n- notes: Keep short notes.")
    request = HumanMessage("add a note tea and delete note 2")
    first = await _reply(_model("load_skill"), [prompt, request])

    assert _calls(first) == [("load_skill", {"name": "notes"})]

    history: list[BaseMessage] = [
        prompt,
        request,
        AIMessage(content=first.text, tool_calls=first.tool_calls),
        ToolMessage(content="Loaded.", tool_call_id="call_1"),
    ]
    second = await _reply(_model("load_skill", "notes_add", "notes_delete"), history)
    assert _calls(second) == [("notes_add", {"text": "tea"}), ("notes_delete", {"id": 2})]


# -- answers after the person responds --------------------------------------------------------


async def test_a_form_answer_is_thanked_by_name_with_every_field() -> None:
    answer = (
        '{"name": "Ada", "email": "ada@example.com", "age": 36, "newsletter": true, "plan": "pro"}'
    )
    args = {"title": "Your details", "fields": FORM_FIELDS}
    history = _after("ask me for my details", "ask_form", args, answer)

    reply = await _reply(_model(*ALL_ASK), history)

    assert reply.tool_calls == []
    assert reply.text.startswith("Thanks, Ada!")
    for line in (
        "- Name: Ada",
        "- Email: ada@example.com",
        "- Age: 36",
        "- Newsletter: yes",
        "- Plan: pro",
    ):
        assert line in reply.text


async def test_a_form_answer_without_a_name_or_json_is_still_acknowledged() -> None:
    args = {"title": "Your details", "fields": FORM_FIELDS}
    no_name = _after("form", "ask_form", args, '{"email": "x@example.com"}')
    not_json = _after("form", "ask_form", args, "I'd rather not say")

    first = await _reply(_model(*ALL_ASK), no_name)
    second = await _reply(_model(*ALL_ASK), not_json)

    assert first.text.startswith("Thanks!")
    assert "- Email: x@example.com" in first.text
    assert "I'd rather not say" in second.text


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"choice": "coffee"}', "You picked: coffee."),
        ('"coffee"', "You picked: coffee."),
        ("coffee", "You picked: coffee."),
        ('{"choices": ["tea", "juice"]}', "You picked: tea, juice."),
        ('["tea", "juice"]', "You picked: tea, juice."),
        ('{"selected": []}', "You did not pick any of the options"),
    ],
)
async def test_a_choice_answer_names_what_was_picked(content: str, expected: str) -> None:
    args = {"question": "Which one?", "options": ["tea", "coffee", "juice"], "multiple": False}
    history = _after("ask me which of tea, coffee or juice", "ask_choice", args, content)

    reply = await _reply(_model(*ALL_ASK), history)

    assert reply.tool_calls == []
    assert expected in reply.text


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("yes", "Confirmed: the order of two pizzas."),
        ("Yes.", "Confirmed: the order of two pizzas."),
        ('{"confirmed": true}', "Confirmed: the order of two pizzas."),
        ("no", "Not confirmed, nothing was done."),
        ("false", "Not confirmed, nothing was done."),
        ("maybe later", "not a yes, so nothing was done"),
    ],
)
async def test_a_confirm_answer_says_confirmed_or_nothing_done(content: str, expected: str) -> None:
    args = {"summary": "the order of two pizzas"}
    history = _after("ask me to confirm the order of two pizzas", "ask_confirm", args, content)

    reply = await _reply(_model(*ALL_ASK), history)

    assert reply.tool_calls == []
    assert expected in reply.text


async def test_a_rejected_question_says_nothing_was_asked() -> None:
    rejection = (
        "Rejected by the person: not now. They declined this call; do not retry it unless they ask."
    )
    history = _after("confirm x", "ask_confirm", {"summary": "x"}, rejection, "error")

    reply = await _reply(_model(*ALL_ASK), history)

    assert "I did not ask you to confirm that" in reply.text
    assert "You said: not now." in reply.text


# -- the generic rule for any tool ------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        'use greet.hello with {"name": "Ada"}',
        'call greet.hello {"name": "Ada"}',
        'Please use `greet.hello` with {"name": "Ada"}.',
        'run greet.hello with arguments {"name": "Ada"}',
    ],
)
async def test_use_a_bound_tool_with_json_calls_it(text: str) -> None:
    reply = await _ask(text, "greet_hello")

    assert _calls(reply) == [("greet_hello", {"name": "Ada"})]
    assert "greet.hello" in reply.text


async def test_a_dashed_tool_name_is_called_by_its_provider_name() -> None:
    # Dashes become "_" in provider names (issue 9), as the registry names the bound tool.
    reply = await _ask('use web-search.fetch with {"url": "x"}', "web_search_fetch")

    assert _calls(reply) == [("web_search_fetch", {"url": "x"})]


async def test_json_that_looks_like_a_note_command_is_passed_through() -> None:
    reply = await _ask('use notes.add with {"text": "delete note 2, add a note x"}', "notes_add")

    assert _calls(reply) == [("notes_add", {"text": "delete note 2, add a note x"})]


async def test_a_dotted_name_without_json_calls_with_no_args() -> None:
    reply = await _ask("call notes.list", "notes_list")

    assert _calls(reply) == [("notes_list", {})]


async def test_call_someone_is_not_a_tool_call() -> None:
    reply = await _ask("call Sam", "greet_hello")

    assert reply.tool_calls == []


async def test_an_unbound_tool_of_a_loadable_skill_is_loaded_first() -> None:
    request = HumanMessage('use greet.hello with {"name": "Ada"}')
    first = await _reply(_model("load_skill"), [SKILLS_PROMPT, request])

    assert _calls(first) == [("load_skill", {"name": "greet"})]

    history: list[BaseMessage] = [
        SKILLS_PROMPT,
        request,
        AIMessage(content=first.text, tool_calls=first.tool_calls),
        ToolMessage(content="Loaded the greet skill.", tool_call_id="call_1"),
    ]
    second = await _reply(_model("load_skill", "greet_hello"), history)
    assert _calls(second) == [("greet_hello", {"name": "Ada"})]


async def test_an_unbound_tool_that_cannot_be_loaded_is_explained() -> None:
    reply = await _ask(
        'use weather.alert with {"city": "Oslo"}', "load_skill", system=SKILLS_PROMPT
    )

    assert reply.tool_calls == []
    # Named as the person wrote it, never by its provider-safe name (weather_alert).
    assert "I would use `weather.alert` for that" in reply.text
    assert "cannot do it here" in reply.text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("use greet.hello with {name: Ada}", "could not read the arguments"),
        ('use greet.hello with ["Ada"]', "must be a JSON object"),
        ('use greet.hello with {"name": "Ada"} and more', "text after the JSON"),
    ],
)
async def test_bad_arguments_are_explained_and_nothing_is_called(text: str, expected: str) -> None:
    reply = await _ask(text, "greet_hello")

    assert reply.tool_calls == []
    assert expected in reply.text


async def test_a_generic_result_is_summarised_with_its_first_500_characters() -> None:
    long_result = "Hello Ada! " + "x" * 600
    history = _after('use greet.hello with {"name": "Ada"}', "greet_hello", {}, long_result)

    reply = await _reply(_model("greet_hello", titles=GREET_TITLE), history)

    assert reply.tool_calls == []
    assert reply.text.startswith("“Greet someone” returned: Hello Ada!")
    assert reply.text.endswith("…")
    assert len(reply.text) == len("“Greet someone” returned: ") + 500 + 1


# -- after slash commands (a tool call the server made, with empty assistant content) ---------


async def test_a_slash_command_result_of_any_tool_gets_an_answer() -> None:
    history = _after("/hello Ada", "greet_hello", {"name": "Ada"}, "Hello Ada!")

    reply = await _reply(_model("greet_hello", titles=GREET_TITLE), history)

    assert reply.tool_calls == []
    assert reply.text == "“Greet someone” returned: Hello Ada!"


async def test_a_slash_command_confirm_answer_is_understood() -> None:
    history = _after("/confirm ship it", "ask_confirm", {"summary": "ship it"}, "yes")

    reply = await _reply(_model(*ALL_ASK), history)

    assert reply.text == "Confirmed: ship it."


async def test_a_slash_command_result_with_no_output_or_unknown_call() -> None:
    empty = _after("/ping", "greet_hello", {}, "")
    orphan: list[BaseMessage] = [
        HumanMessage("/ping"),
        AIMessage(content="", tool_calls=[{"id": "call_1", "name": "ping", "args": {}}]),
        ToolMessage(content="pong", tool_call_id="call_other"),
    ]

    first = await _reply(_model("greet_hello", titles=GREET_TITLE), empty)
    second = await _reply(_model(), orphan)

    assert first.text == "“Greet someone” finished with no output."
    assert second.text == "The tool returned: pong"


async def test_the_same_skill_conversation_gives_the_same_reply() -> None:
    messages: list[BaseMessage] = [SKILLS_PROMPT, HumanMessage("ask me for my details")]

    first = await _reply(_model("load_skill"), messages)
    second = await _reply(_model("load_skill"), messages)

    assert first.text == second.text
    assert first.tool_calls == second.tool_calls
