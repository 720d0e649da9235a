"""The built-in offline model: its answers to tool results (chosen, refused, failed, listed)."""

from __future__ import annotations

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)

from support.offline_model import (
    SYSTEM,
    ask,
    checked_calls,
    history_after,
    offline_model,
    stream_of,
)

# -- answers to tool results ------------------------------------------------------------------


async def test_a_chosen_suggestion_is_acknowledged_verbatim() -> None:
    history = history_after(
        "ideas for a name for my cat",
        [("suggestions", {"options": ["Miso", "Pixel"]})],
        [("The person chose: Pixel", "success")],
    )

    _, reply = await stream_of(offline_model(), history)

    assert reply.tool_calls == []
    assert "Great choice: **Pixel**" in reply.text


async def test_a_rejected_delete_quotes_the_reason_and_does_nothing() -> None:
    rejection = (
        "Rejected by the person: I still need that one. They declined this call; "
        "do not retry it unless they ask."
    )
    history = history_after("delete note 3", [("notes_delete", {"id": 3})], [(rejection, "error")])

    _, reply = await stream_of(offline_model(), history)

    assert reply.tool_calls == []
    assert "I did not delete the note" in reply.text
    assert "You said: I still need that one." in reply.text
    assert "Nothing was done" in reply.text


async def test_a_rejection_without_reason_says_so() -> None:
    rejection = (
        "Rejected by the person: no reason given. They declined this call; "
        "do not retry it unless they ask."
    )
    history = history_after("add a note x", [("notes_add", {"text": "x"})], [(rejection, "error")])

    _, reply = await stream_of(offline_model(), history)

    assert "I did not add the note" in reply.text
    assert "did not give a reason" in reply.text


async def test_a_tool_error_is_explained_in_words_without_its_code_or_hint() -> None:
    error = "Error [not_found]: There is no note #9. Hint: Call notes.list to see the ids."
    history = history_after("delete note 9", [("notes_delete", {"id": 9})], [(error, "error")])

    _, reply = await stream_of(offline_model(), history)

    assert reply.tool_calls == []
    assert "not_found" not in reply.text  # the code is for programs, not the person
    assert reply.text == "Sorry — I could not delete the note. There is no note #9."
    # The hint tells the model what to call next; the person cannot call notes.list.
    assert "Hint" not in reply.text and "notes.list" not in reply.text


async def test_a_cancelled_call_is_reported_as_not_done() -> None:
    history = history_after(
        "delete note 2", [("notes_delete", {"id": 2})], [("Cancelled: run cancelled.", "error")]
    )

    _, reply = await stream_of(offline_model(), history)

    assert "cancelled" in reply.text
    assert "Nothing was done" in reply.text


async def test_an_added_note_is_confirmed_with_its_text() -> None:
    history = history_after(
        "add a note buy milk",
        [("notes_add", {"text": "buy milk"})],
        [("Added note #4: buy milk", "success")],
    )

    _, reply = await stream_of(offline_model(), history)

    assert reply.text == "Done — I added note #4: “buy milk”."


async def test_a_note_listing_is_shown() -> None:
    history = history_after(
        "what notes do I have", [("notes_list", {})], [("#1: buy milk\n#2: call Sam", "success")]
    )

    _, reply = await stream_of(offline_model(), history)

    assert reply.tool_calls == []
    # One Markdown list item per note: plain lines would render as one run-on paragraph.
    assert reply.text == "Here are your notes:\n\n- #1: buy milk\n- #2: call Sam"


async def test_a_note_listing_says_here_are_your_notes_once() -> None:
    request = "what notes do I have?"
    call = await ask(request)
    history: list[BaseMessage] = [
        SYSTEM,
        HumanMessage(request),
        AIMessage(content=call.text, tool_calls=call.tool_calls),
        ToolMessage(content="#1: buy milk", tool_call_id=call.tool_calls[0]["id"]),
    ]

    _, answer = await stream_of(offline_model(), history)

    said = f"{call.text}\n{answer.text}".lower()
    assert said.count("here are your notes") == 1, said
    assert "#1: buy milk" in answer.text


async def test_delete_by_text_deletes_the_matching_note_after_listing() -> None:
    listing = "#1: call Sam\n#3: Buy milk\n#4: water plants"
    history = history_after("delete note buy milk", [("notes_list", {})], [(listing, "success")])

    _, reply = await stream_of(offline_model(), history)

    assert checked_calls(reply) == [("notes_delete", {"id": 3})]
    assert reply.tool_calls[0]["id"] == "call_2"


async def test_delete_by_text_without_a_match_deletes_nothing() -> None:
    history = history_after(
        "delete note buy milk", [("notes_list", {})], [("#1: call Sam", "success")]
    )

    _, reply = await stream_of(offline_model(), history)

    assert reply.tool_calls == []
    assert "No note matched “buy milk”" in reply.text


async def test_several_results_after_one_message_are_answered_in_order() -> None:
    history = history_after(
        "add a note tea and delete note 2",
        [("notes_add", {"text": "tea"}), ("notes_delete", {"id": 2})],
        [("Added note #5: tea", "success"), ("Error [not_found]: There is no note #2.", "error")],
    )

    _, reply = await stream_of(offline_model(), history)

    assert reply.tool_calls == []
    added, failed = reply.text.split("\n\n")
    assert "note #5" in added
    assert "There is no note #2." in failed


async def test_unknown_tool_results_are_summarised() -> None:
    history = history_after("hello", [("weather_get", {})], [("Sunny, 21 °C", "success")])

    _, reply = await stream_of(offline_model(), history)

    assert "weather_get" in reply.text
    assert "Sunny, 21 °C" in reply.text
