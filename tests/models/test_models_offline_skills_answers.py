"""The offline model and skills: its answers after the person responds, the generic rule for any
tool, and answers after slash commands."""

from __future__ import annotations

import pytest
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from interlock.engine.turn import ACTIONS_OFF_NOTE
from interlock.models.offline import OfflineChatModel
from interlock.models.offline_plans import FORM_FIELDS
from support.offline_skills import (
    ALL_ASK,
    GREET_TITLE,
    PLAIN_PROMPT,
    SKILLS_PROMPT,
    answer_to,
    ask,
    bound_model,
    checked_calls,
    history_after,
)

# -- answers after the person responds --------------------------------------------------------


async def test_a_form_answer_is_thanked_by_name_with_every_field() -> None:
    answer = (
        '{"name": "Ada", "email": "ada@example.com", "age": 36, "newsletter": true, "plan": "pro"}'
    )
    args = {"title": "Your details", "fields": FORM_FIELDS}
    history = history_after("ask me for my details", "ask_form", args, answer)

    reply = await answer_to(bound_model(*ALL_ASK), history)

    assert reply.tool_calls == []
    assert reply.text.startswith("Thanks, Ada!")
    for line in (
        "- Name: Ada",
        "- Email: ada@example.com",
        "- Age: 36",
        "- Newsletter: Yes",
        "- Plan: Pro",
    ):
        assert line in reply.text


async def test_a_form_answer_names_a_choice_as_the_form_listed_it() -> None:
    """As the card says it (client-web formAnswer.answerRows, schemaFields.choiceWord): an
    option's title, else the listed value in words; a value the form did not list as is."""
    fields = {
        "type": "object",
        "properties": {
            "size": {
                "type": "string",
                "oneOf": [{"const": "s", "title": "Small"}, {"const": "xl"}],
            },
            "tier": {"type": "string", "anyOf": [{"const": "gold", "title": "Gold tier"}]},
            "plan": {"type": "string", "enum": ["free", "pro_plus"], "title": "Plan"},
            "note": {"type": "string"},
        },
    }
    answer = '{"size": "s", "tier": "gold", "plan": "pro_plus", "note": "pro", "other": "xl"}'
    history = history_after("form", "ask_form", {"title": "Order", "fields": fields}, answer)

    reply = await answer_to(bound_model(*ALL_ASK), history)

    for line in ("- size: Small", "- tier: Gold tier", "- Plan: Pro plus", "- note: pro"):
        assert line in reply.text
    assert "- other: xl" in reply.text


async def test_a_form_answer_without_a_name_or_json_is_still_acknowledged() -> None:
    args = {"title": "Your details", "fields": FORM_FIELDS}
    no_name = history_after("form", "ask_form", args, '{"email": "x@example.com"}')
    not_json = history_after("form", "ask_form", args, "I'd rather not say")

    first = await answer_to(bound_model(*ALL_ASK), no_name)
    second = await answer_to(bound_model(*ALL_ASK), not_json)

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
    history = history_after("ask me which of tea, coffee or juice", "ask_choice", args, content)

    reply = await answer_to(bound_model(*ALL_ASK), history)

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
    history = history_after(
        "ask me to confirm the order of two pizzas", "ask_confirm", args, content
    )

    reply = await answer_to(bound_model(*ALL_ASK), history)

    assert reply.tool_calls == []
    assert expected in reply.text


async def test_a_rejected_question_says_nothing_was_asked() -> None:
    rejection = (
        "Rejected by the person: not now. They declined this call; do not retry it unless they ask."
    )
    history = history_after("confirm x", "ask_confirm", {"summary": "x"}, rejection, "error")

    reply = await answer_to(bound_model(*ALL_ASK), history)

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
    reply = await ask(text, "greet_hello")

    assert checked_calls(reply) == [("greet_hello", {"name": "Ada"})]
    assert "greet.hello" in reply.text


async def test_a_dashed_tool_name_is_called_by_its_provider_name() -> None:
    # Dashes become "_" in provider names (issue 9), as the registry names the bound tool.
    reply = await ask('use web-search.fetch with {"url": "x"}', "web_search_fetch")

    assert checked_calls(reply) == [("web_search_fetch", {"url": "x"})]


async def test_json_that_looks_like_a_note_command_is_passed_through() -> None:
    reply = await ask('use notes.add with {"text": "delete note 2, add a note x"}', "notes_add")

    assert checked_calls(reply) == [("notes_add", {"text": "delete note 2, add a note x"})]


async def test_a_dotted_name_without_json_calls_with_no_args() -> None:
    reply = await ask("call notes.list", "notes_list")

    assert checked_calls(reply) == [("notes_list", {})]


async def test_call_someone_is_not_a_tool_call() -> None:
    reply = await ask("call Sam", "greet_hello")

    assert reply.tool_calls == []


async def test_an_unbound_tool_of_a_loadable_skill_is_loaded_first() -> None:
    request = HumanMessage('use greet.hello with {"name": "Ada"}')
    first = await answer_to(bound_model("load_skill"), [SKILLS_PROMPT, request])

    assert checked_calls(first) == [("load_skill", {"name": "greet"})]

    history: list[BaseMessage] = [
        SKILLS_PROMPT,
        request,
        AIMessage(content=first.text, tool_calls=first.tool_calls),
        ToolMessage(content="Loaded the greet skill.", tool_call_id="call_1"),
    ]
    second = await answer_to(bound_model("load_skill", "greet_hello"), history)
    assert checked_calls(second) == [("greet_hello", {"name": "Ada"})]


async def test_an_unbound_tool_that_cannot_be_loaded_is_explained() -> None:
    reply = await ask('use weather.alert with {"city": "Oslo"}', "load_skill", system=SKILLS_PROMPT)

    assert reply.tool_calls == []
    # Named as the person wrote it, never by its provider-safe name (weather_alert).
    assert "I would use `weather.alert` for that" in reply.text
    assert "cannot do it here" in reply.text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("use greet.hello with {name: Ada}", "every name must be in double quotes"),
        ('use greet.hello with {"name": "Ada"', "it stops too early"),
        ('use greet.hello with ["Ada"]', "they must be names and values in braces"),
        ('use greet.hello with {"name": "Ada"} and more', "more text after them (“and more”)"),
        # Once a RecursionError that failed the run as "The AI model could not answer".
        ('use greet.hello with {"name": ' + "[" * 5_000 + "]" * 5_000 + "}", "nested too deeply"),
        ('use greet.hello with {"n": 1' + "0" * 4_999 + "}", "a number in it is too long"),
    ],
)
async def test_bad_arguments_are_explained_and_nothing_is_called(text: str, expected: str) -> None:
    """In words, never the parser's ("Expecting property name enclosed in double quotes at
    character 2"), the tool named by its title."""
    reply = await answer_to(
        bound_model("greet_hello", titles=GREET_TITLE), [PLAIN_PROMPT, HumanMessage(text)]
    )

    assert reply.tool_calls == []
    assert reply.text.startswith("I couldn't read the details for “Greet someone”: "), reply.text
    assert expected in reply.text
    for parser_words in ("Expecting", "character", "delimiter", "Extra data", "recursion"):
        assert parser_words not in reply.text


async def test_bad_arguments_of_a_tool_without_a_title_name_it_as_written() -> None:
    reply = await ask("use greet.hello with {name: Ada}", "greet_hello")

    assert reply.text.startswith("I couldn't read the details for `greet.hello`: ")


async def test_a_tool_switched_off_by_ai_actions_is_named_by_title_with_the_reason() -> None:
    """It once said the tool (`notes.add`) "is not available in this conversation"."""
    model = OfflineChatModel().bind_tools(
        [], tool_titles={"notes_add": "Add a note"}, action_tools=["notes_add"]
    )
    system = SystemMessage(f"You are helpful.\n\n{ACTIONS_OFF_NOTE}")
    for text in ('use notes.add with {"text": "milk"}', "add a note buy milk"):
        reply = await answer_to(model, [system, HumanMessage(text)])

        assert reply.tool_calls == []
        assert reply.text.startswith("I would use “Add a note” for that, but AI actions are off")
        assert "notes.add" not in reply.text and "not available" not in reply.text


async def test_a_generic_result_is_summarised_with_its_first_500_characters() -> None:
    long_result = "Hello Ada! " + "x" * 600
    history = history_after('use greet.hello with {"name": "Ada"}', "greet_hello", {}, long_result)

    reply = await answer_to(bound_model("greet_hello", titles=GREET_TITLE), history)

    assert reply.tool_calls == []
    assert reply.text.startswith("“Greet someone” returned: Hello Ada!")
    assert reply.text.endswith("…")
    assert len(reply.text) == len("“Greet someone” returned: ") + 500 + 1


# -- after slash commands (a tool call the server made, with empty assistant content) ---------


async def test_a_slash_command_result_of_any_tool_gets_an_answer() -> None:
    history = history_after("/hello Ada", "greet_hello", {"name": "Ada"}, "Hello Ada!")

    reply = await answer_to(bound_model("greet_hello", titles=GREET_TITLE), history)

    assert reply.tool_calls == []
    assert reply.text == "“Greet someone” returned: Hello Ada!"


async def test_a_slash_command_confirm_answer_is_understood() -> None:
    history = history_after("/confirm ship it", "ask_confirm", {"summary": "ship it"}, "yes")

    reply = await answer_to(bound_model(*ALL_ASK), history)

    assert reply.text == "Confirmed: ship it."


async def test_a_slash_command_result_with_no_output_or_unknown_call() -> None:
    empty = history_after("/ping", "greet_hello", {}, "")
    orphan: list[BaseMessage] = [
        HumanMessage("/ping"),
        AIMessage(content="", tool_calls=[{"id": "call_1", "name": "ping", "args": {}}]),
        ToolMessage(content="pong", tool_call_id="call_other"),
    ]

    first = await answer_to(bound_model("greet_hello", titles=GREET_TITLE), empty)
    second = await answer_to(bound_model(), orphan)

    assert first.text == "“Greet someone” finished with no output."
    assert second.text == "The tool returned: pong"


async def test_the_same_skill_conversation_gives_the_same_reply() -> None:
    messages: list[BaseMessage] = [SKILLS_PROMPT, HumanMessage("ask me for my details")]

    first = await answer_to(bound_model("load_skill"), messages)
    second = await answer_to(bound_model("load_skill"), messages)

    assert first.text == second.text
    assert first.tool_calls == second.tool_calls
