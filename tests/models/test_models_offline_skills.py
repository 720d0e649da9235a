"""The offline model and skills: the ask skill's tools and progressive disclosure.

What it answers after a result, the generic rule for any tool and slash commands:
``test_models_offline_skills_answers``.
"""

from __future__ import annotations

import jsonschema
import pytest
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from interlock.models.offline.skill_answers import action_for, describe_answer
from interlock.models.offline.tool_names import skills_words
from interlock.models.offline_plans import FORM_FIELDS, loadable_skills, skill_of
from support.offline_skills import (
    ALL_ASK,
    PLAIN_PROMPT,
    SKILLS_PROMPT,
    answer_to,
    ask,
    bound_model,
    checked_calls,
    history_after,
)

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
    reply = await ask(text, *ALL_ASK)

    ((name, args),) = checked_calls(reply)
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
    reply = await ask(text, *ALL_ASK)

    assert checked_calls(reply) == [
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
    reply = await ask("ask me to choose", *ALL_ASK)

    assert reply.tool_calls == []
    assert "Which options" in reply.text


async def test_help_me_choose_still_calls_suggestions() -> None:
    reply = await ask("help me choose between tea, coffee or juice", "suggestions", *ALL_ASK)

    assert checked_calls(reply) == [("suggestions", {"options": ["tea", "coffee", "juice"]})]


async def test_a_choice_falls_back_to_suggestions_when_ask_cannot_be_used() -> None:
    reply = await ask("ask me to choose between tea or coffee", "suggestions")

    assert checked_calls(reply) == [("suggestions", {"options": ["tea", "coffee"]})]


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
    reply = await ask(text, *ALL_ASK)

    ((name, args),) = checked_calls(reply)
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
    reply = await ask("add a note fill in the form", "notes_add", *ALL_ASK)

    assert checked_calls(reply) == [("notes_add", {"text": "fill in the form"})]


# -- ask_confirm ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "summary"),
    [
        ("ask me to confirm the order of two pizzas", "Do you confirm the order of two pizzas?"),
        ("Confirm deleting all my notes.", "Do you confirm deleting all your notes?"),
        ("can you ask me to confirm that we ship today?", "Do you confirm that we ship today?"),
        ('confirm: "book the 9:15 train"', "Should I book the 9:15 train?"),
    ],
)
async def test_confirm_requests_call_ask_confirm_with_the_summary(text: str, summary: str) -> None:
    reply = await ask(text, *ALL_ASK)

    assert checked_calls(reply) == [("ask_confirm", {"summary": summary})]


async def test_confirm_without_a_summary_asks_what_to_confirm() -> None:
    reply = await ask("confirm", *ALL_ASK)

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
    first = await answer_to(bound_model("load_skill", "notes_list"), [SKILLS_PROMPT, request])

    assert checked_calls(first) == [("load_skill", {"name": "ask"})]
    assert first.tool_calls[0]["id"] == "call_1"
    assert first.text == "I'll load the tools to ask you questions first."  # not `ask` skill

    history: list[BaseMessage] = [
        SKILLS_PROMPT,
        request,
        AIMessage(content=first.text, tool_calls=first.tool_calls),
        ToolMessage(content="Loaded the ask skill.", tool_call_id="call_1"),
    ]
    second = await answer_to(bound_model("load_skill", "notes_list", *ALL_ASK), history)

    ((name, args),) = checked_calls(second)
    assert name == "ask_form"
    assert args["fields"] == FORM_FIELDS
    assert second.tool_calls[0]["id"] == "call_2"


async def test_each_ask_mapping_loads_the_ask_skill_first() -> None:
    for text in (
        "ask me to choose between a and b",
        "ask me to confirm x",
        "sign me up",
    ):
        reply = await ask(text, "load_skill", system=SKILLS_PROMPT)
        assert checked_calls(reply) == [("load_skill", {"name": "ask"})], text


async def test_a_skill_is_loaded_at_most_once_per_request() -> None:
    history = history_after("ask me to confirm x", "load_skill", {"name": "ask"}, "Loaded.")

    reply = await answer_to(bound_model("load_skill"), history)

    assert reply.tool_calls == []
    assert "I loaded the tools to ask you questions" in reply.text
    assert "“Ask to confirm”" in reply.text and "ask_confirm" not in reply.text
    assert "`" not in reply.text and "skill" not in reply.text  # no code names


async def test_a_skill_that_is_not_loadable_is_not_loaded() -> None:
    reply = await ask("ask me to confirm x", "load_skill", system=PLAIN_PROMPT)

    assert reply.tool_calls == []
    assert "I would use “Ask to confirm” for that" in reply.text
    assert "cannot do it here" in reply.text


async def test_without_load_skill_the_model_explains_it_cannot() -> None:
    reply = await ask("ask me for my details", "notes_list", system=SKILLS_PROMPT)

    assert reply.tool_calls == []
    assert "I would use “Ask to fill in a form” for that" in reply.text
    assert "cannot do it here" in reply.text


async def test_a_failed_load_is_explained() -> None:
    error = "Error [not_found]: There is no skill 'ask' to load."
    history = history_after("ask me for my details", "load_skill", {"name": "ask"}, error, "error")

    reply = await answer_to(bound_model("load_skill"), history)

    assert reply.tool_calls == []
    assert "could not load the tools to ask you questions" in reply.text
    assert "not_found" not in reply.text  # the code is for programs, not the person


async def test_unloaded_notes_are_loaded_before_a_compound_request() -> None:
    prompt = SystemMessage("Skills you can load:\n- notes: Keep short notes.")
    request = HumanMessage("add a note tea and delete note 2")
    first = await answer_to(bound_model("load_skill"), [prompt, request])

    assert checked_calls(first) == [("load_skill", {"name": "notes"})]
    assert first.text == "I'll load the notes tools first."

    history: list[BaseMessage] = [
        prompt,
        request,
        AIMessage(content=first.text, tool_calls=first.tool_calls),
        ToolMessage(content="Loaded.", tool_call_id="call_1"),
    ]
    second = await answer_to(bound_model("load_skill", "notes_add", "notes_delete"), history)
    assert checked_calls(second) == [("notes_add", {"text": "tea"}), ("notes_delete", {"id": 2})]


async def test_skills_are_named_in_the_persons_words_not_by_code_name() -> None:
    prompt = SystemMessage("Skills you can load:\n- web_search: Search the web.")
    request = HumanMessage('use web_search.fetch with {"url": "https://example.org"}')
    first = await answer_to(bound_model("load_skill"), [prompt, request])

    assert checked_calls(first) == [("load_skill", {"name": "web_search"})]
    assert first.text == "I'll load the web search tools first."

    assert skills_words(["notes", "ask", "documents"]) == (
        "the notes tools, the tools to ask you questions and the documents tools"
    )
    assert describe_answer("load_skill", {"name": "ask"}, "...") == (
        "I loaded the tools to ask you questions."
    )
    assert action_for("load_skill", {"name": "browser"}) == (
        "load the tools that read from your browser"
    )
