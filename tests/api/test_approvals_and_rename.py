"""API: the Approvals list, ``pending`` counts, renaming a conversation, tool facts in /api/tools."""

from __future__ import annotations

from typing import Any

import pytest

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage.users import create_user
from support.live import LiveServer, live_server
from support.sse import collect, terminals


async def _pause_on_add(server: LiveServer, text: str) -> tuple[str, str]:
    """Start a conversation whose run pauses on one ``notes.add`` card; return its ids."""
    conversation_id = await server.new_conversation()
    server.services.engine.model = ScriptedChatModel(
        responses=[scripted_message("", ("notes_add", {"text": text}))]
    )
    await server.say(conversation_id, f"remember {text}")
    log = await collect(server.client, conversation_id, until=terminals(1))
    await server.idle()
    assert log.types[-1] == "run.paused", log.types
    return conversation_id, log.of("tool_call.interrupted")[0]["tool_call"]["id"]


async def test_approvals_lists_the_callers_waiting_calls_newest_first(
    api_settings: Settings,
) -> None:
    async with live_server(api_settings, model=ScriptedChatModel(responses=[])) as server:
        first, first_call = await _pause_on_add(server, "one")
        second, second_call = await _pause_on_add(server, "two")

        approvals = (await server.client.get("/api/approvals")).json()
        assert [a["tool_call"]["id"] for a in approvals] == [second_call, first_call]
        assert [a["conversation"]["id"] for a in approvals] == [second, first]
        assert approvals[0]["conversation"]["pending"] == 1
        assert approvals[0]["conversation"]["status"] == "paused"
        assert approvals[0]["tool_call"]["confirmation"]["summary"] == "Add a note: “two”"

        listed = {c["id"]: c for c in (await server.client.get("/api/conversations")).json()}
        assert (listed[first]["pending"], listed[second]["pending"]) == (1, 1)

        decided = await server.decide(first_call, type="reject", message="not now")
        assert decided.status_code == 200, decided.text
        await collect(server.client, first, until=terminals(2))
        await server.idle()
        approvals = (await server.client.get("/api/approvals")).json()
        assert [a["tool_call"]["id"] for a in approvals] == [second_call]
        summary = (await server.client.get(f"/api/conversations/{first}")).json()
        assert (summary["pending"], summary["status"]) == (0, "idle")


async def test_approvals_never_show_another_persons_calls(api_settings: Settings) -> None:
    from interlock.storage import Database

    database = Database(api_settings.database_url)
    try:
        _ann, ann_token = create_user(database, "ann")
        _bob, bob_token = create_user(database, "bob")
    finally:
        database.dispose()
    model = ScriptedChatModel(responses=[scripted_message("", ("notes_add", {"text": "ann's"}))])
    ann = {"Authorization": f"Bearer {ann_token}"}
    bob = {"Authorization": f"Bearer {bob_token}"}
    async with live_server(api_settings, model=model, headers=ann) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "remember")
        log = await collect(server.client, conversation_id, until=terminals(1))
        await server.idle()
        call_id = log.of("tool_call.interrupted")[0]["tool_call"]["id"]

        assert [
            a["tool_call"]["id"] for a in (await server.client.get("/api/approvals")).json()
        ] == [call_id]
        as_bob = await server.client.get("/api/approvals", headers=bob)
        assert as_bob.status_code == 200 and as_bob.json() == []
        output = await server.client.get(f"/api/tool-calls/{call_id}/output", headers=bob)
        assert output.status_code == 404
        renamed = await server.client.patch(
            f"/api/conversations/{conversation_id}", json={"title": "mine"}, headers=bob
        )
        assert renamed.status_code == 404
        assert renamed.json()["error"]["code"] == "not_found"


async def test_rename_trims_the_title_and_returns_the_summary(server: LiveServer) -> None:
    conversation_id = await server.new_conversation()

    response = await server.client.patch(
        f"/api/conversations/{conversation_id}", json={"title": "  Trip to Oslo ✈️  "}
    )

    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["id"], body["title"], body["pending"], body["status"]) == (
        conversation_id,
        "Trip to Oslo ✈️",
        0,
        "idle",
    )
    detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    assert detail["title"] == "Trip to Oslo ✈️"


@pytest.mark.parametrize(
    "body",
    [
        {"title": ""},
        {"title": "   "},
        {"title": "x" * 201},
        {"title": "two\nlines"},
        {"title": "tab\there"},
        {"title": "bell\u0007"},
        {"title": "line\u2028separator"},
        {"title": "\u202e\u200b"},
        {"title": "\ufeff \u2066"},
        {"title": "\U000e0041"},
        {"title": 5},
        {},
        {"title": "ok", "extra": 1},
    ],
    ids=[
        "empty",
        "blank",
        "too-long",
        "newline",
        "tab",
        "control",
        "line-separator",
        "only-bidi-and-zero-width",
        "only-bom-and-isolate",
        "only-a-tag",
        "number",
        "missing",
        "extra",
    ],
)
async def test_rename_refuses_bad_titles_and_changes_nothing(
    server: LiveServer, body: dict[str, Any]
) -> None:
    conversation_id = await server.new_conversation()

    response = await server.client.patch(f"/api/conversations/{conversation_id}", json=body)

    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == "invalid_request"
    detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    assert detail["title"] == "New conversation"


@pytest.mark.parametrize(
    ("sent", "title"),
    [
        # Found in QA: "Invoice \u202egnp.exe" was stored as "Invoice gnp.exe". The README's
        # rule: stored as written, shown as "[U+202E]" (the client's reveal).
        ("Invoice \u202egnp.exe", None),
        ("\u202eevil\u200b name", None),
        ("a  \u00a0 b", "a b"),
        ("flag \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", None),
        ("family 👩\u200d👩\u200d👧", None),
    ],
    ids=[
        "bidi-kept",
        "invisible-kept",
        "spaces-collapsed",
        "subdivision-flag-kept",
        "joiners-kept",
    ],
)
async def test_a_renamed_title_is_one_visible_line(
    server: LiveServer, sent: str, title: str | None
) -> None:
    """A rename keeps what a title from the first message keeps: the text as written, on one
    line."""
    conversation_id = await server.new_conversation()

    response = await server.client.patch(
        f"/api/conversations/{conversation_id}", json={"title": sent}
    )

    assert response.status_code == 200, response.text
    assert response.json()["title"] == (title or sent)


async def test_rename_of_an_unknown_conversation_is_404(server: LiveServer) -> None:
    response = await server.client.patch("/api/conversations/conv_nope", json={"title": "x"})
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


async def test_tools_list_states_execution_modal_and_annotations(server: LiveServer) -> None:
    tools = {t["name"]: t for t in (await server.client.get("/api/tools")).json()}

    delete = tools["notes.delete"]
    assert (delete["execution"], delete["modal"], delete["annotations"]["destructive"]) == (
        "server",
        False,
        True,
    )
    assert "question" in tools["suggestions"]["input_schema"]["properties"]


@pytest.mark.parametrize(
    ("content", "title"),
    [
        ("\rring\tthe\nbell \u202eevil\u200b\x7f ", "ring the bell \u202eevil\u200b"),
        ("\x7f\u200b\ufeff\u2066", "New conversation"),  # a DEL: sent, yet no title
        ("family 👩\u200d👩\u200d👧 trip ✈️", "family 👩\u200d👩\u200d👧 trip ✈️"),
        (
            "go \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
            "go \U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",
        ),
        (
            "Please plan the quarterly offsite for the sales team in Lisbon next spring",
            "Please plan the quarterly offsite for the sales team in…",
        ),
        ("x" * 80, "x" * 59 + "…"),
    ],
    ids=[
        "controls",
        "only-invisible",
        "emoji-joiners-kept",
        "subdivision-flag-kept",
        "long-cut-at-a-word",
        "long-word-cut",
    ],
)
async def test_a_title_taken_from_the_first_message_is_one_visible_line(
    server: LiveServer, content: str, title: str
) -> None:
    """The automatic title obeys the rename rule: one line, no control characters, format
    characters (a bidi override) kept as written."""
    conversation_id = await server.new_conversation()

    await server.say(conversation_id, content)
    await collect(server.client, conversation_id, until=terminals(1))

    detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    assert detail["title"] == title
    if title != "New conversation":  # a rename to the same text is accepted
        response = await server.client.patch(
            f"/api/conversations/{conversation_id}", json={"title": detail["title"]}
        )
        assert response.status_code == 200, response.text
