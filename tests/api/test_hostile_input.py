"""Hostile and odd input: refused early with a clear code, nothing stored, nothing leaked."""

from __future__ import annotations

import httpx

from interlock.storage.users import create_user
from support.live import LiveServer
from support.sse import collect, terminals


def _code(response: httpx.Response, status: int) -> str:
    assert response.status_code == status, response.text
    return str(response.json()["error"]["code"])


async def test_a_huge_body_is_refused_before_it_is_read_or_authenticated(
    server: LiveServer,
) -> None:
    conversation_id = await server.new_conversation()
    url = f"/api/conversations/{conversation_id}/messages"
    big = b'{"content": "' + b"a" * (2 * 1024 * 1024) + b'"}'
    response = await server.client.post(
        url, content=big, headers={"content-type": "application/json"}
    )
    assert _code(response, 413) == "payload_too_large"

    async def chunks():  # no Content-Length: counted as it arrives
        for _ in range(40):
            yield b"a" * 65536

    response = await server.client.post(
        url, content=chunks(), headers={"content-type": "application/json"}
    )
    assert _code(response, 413) == "payload_too_large"
    detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    assert detail["messages"] == []


async def test_the_implied_local_user_needs_a_loopback_host_and_origin(server: LiveServer) -> None:
    assert (await server.client.get("/api/me")).status_code == 200
    for headers in (
        {"Host": "attacker.test:8000"},
        {"Host": "evil.example.com"},
        {"Origin": "http://attacker.test:8000"},
    ):
        assert _code(await server.client.get("/api/me", headers=headers), 401) == "unauthorized"


async def test_responses_carry_security_headers(server: LiveServer) -> None:
    response = await server.client.get("/")
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert "img-src 'self' data:" in response.headers["content-security-policy"]


async def test_nul_and_lone_surrogates_are_refused_at_the_door(server: LiveServer) -> None:
    conversation_id = await server.new_conversation()
    url = f"/api/conversations/{conversation_id}/messages"
    for content in ("a\u0000b", "a\ud800b", "\udfff"):
        response = await server.client.post(
            url,
            content=(
                '{"content": "'
                + content.encode("unicode_escape").decode().replace("\\x00", "\\u0000")
                + '"}'
            ).encode(),
            headers={"content-type": "application/json"},
        )
        assert _code(response, 422) == "invalid_request", content
    for path in ("/api/conversations/conv_%00", "/api/employees/as%00sistant"):
        assert _code(await server.client.get(path), 404) == "not_found"
    assert (await server.client.get(f"/api/conversations/{conversation_id}")).json()[
        "messages"
    ] == []

    await server.say(conversation_id, "add a note fine")
    log = await collect(server.client, conversation_id, until=terminals(1))
    call_id = log.of("tool_call.interrupted")[0]["tool_call"]["id"]
    response = await server.client.post(
        f"/api/tool-calls/{call_id}/decision",
        content=b'{"type": "edit", "args": {"text": "a\\ud800b"}}',
        headers={"content-type": "application/json"},
    )
    assert _code(response, 422) == "invalid_request"
    pending = (await server.client.get(f"/api/conversations/{conversation_id}/pending")).json()
    assert [c["id"] for c in pending] == [call_id]


async def test_a_nul_in_a_query_parameter_is_refused_not_a_server_error(
    server: LiveServer,
) -> None:
    for query in (
        "/api/audit?tool=%00",
        "/api/audit?employee=a%00b&outcome=approved",
        "/api/audit/export?user=%00",
        "/api/conversations?cursor=%00",
        "/api/metrics/tools?since=2026-01-01%00",
        "/api/approvals?x=%00",
    ):
        assert _code(await server.client.get(query), 422) == "invalid_request", query
    assert (await server.client.get("/api/audit?tool=notes.add")).status_code == 200


async def test_refused_fields_say_what_is_wrong_without_pydantic_prefixes(
    server: LiveServer,
) -> None:
    conversation_id = await server.new_conversation()
    for path, body in (
        (f"/api/conversations/{conversation_id}/messages", {"content": "   "}),
        (f"/api/conversations/{conversation_id}", {"title": "a\tb"}),
        ("/api/grants", {"tool": "notes.add", "scope": "conversation"}),
    ):
        method = server.client.patch if path.endswith(conversation_id) else server.client.post
        response = await method(path, json=body)
        assert response.status_code == 422, response.text
        error = response.json()["error"]
        # A field error per field, or one sentence for a refusal of the whole request.
        messages = [e["message"] for e in error.get("details", {}).get("errors", [])]
        assert messages or error["code"] != "invalid_request", error
        for message in messages or [error["message"]]:
            assert message and not message.startswith("Value error"), error


async def test_a_question_cannot_be_approved_only_answered_or_rejected(server: LiveServer) -> None:
    response = await server.client.post("/api/conversations", json={"employee": "scout"})
    conversation_id = response.json()["id"]
    await server.say(conversation_id, "ask me to confirm the booking")
    log = await collect(server.client, conversation_id, until=terminals(1))
    call = log.of("tool_call.interrupted")[0]["tool_call"]
    assert call["name"] == "ask.confirm"
    assert _code(await server.decide(call["id"], type="approve"), 422) == "invalid_request"
    assert (await server.decide(call["id"], type="respond", message="yes")).status_code == 200


async def test_a_disabled_employees_waiting_calls_do_not_run(server: LiveServer) -> None:
    conversation_id = await server.new_conversation()
    await server.say(conversation_id, "add a note later")
    log = await collect(server.client, conversation_id, until=terminals(1))
    call_id = log.of("tool_call.interrupted")[0]["tool_call"]["id"]
    response = await server.client.patch("/api/employees/assistant", json={"disabled": True})
    assert response.status_code == 200
    assert _code(await server.decide(call_id, type="approve"), 409) == "employee_disabled"


async def test_employee_fields_are_not_coerced_and_models_are_checked(server: LiveServer) -> None:
    for body in (
        {"disabled": "yes"},
        {"disabled": 1},
        {"model": "nonexistent:model"},
        {"model": "not-a-model"},
        {"name": "a\u0000b"},
    ):
        response = await server.client.patch("/api/employees/assistant", json=body)
        assert response.status_code == 422, (body, response.text)
    employee = (await server.client.get("/api/employees/assistant")).json()
    assert employee["disabled"] is False and employee["model"] is None


async def test_members_do_not_see_why_a_skill_failed_or_where_it_lives(
    server: LiveServer,
) -> None:
    _user, token = create_user(server.services.db, "mia")
    headers = {"Authorization": f"Bearer {token}"}
    skills = (await server.client.get("/api/skills", headers=headers)).json()
    assert skills and all(s["path"] is None for s in skills)


async def test_times_without_a_utc_form_are_refused_not_a_server_error(server: LiveServer) -> None:
    """A zoned time at the ends of the calendar (year 9999 minus 5 h) has no UTC form: 422."""
    conversation_id = await server.new_conversation()
    late, early = "9999-12-31T23:59:59-05:00", "0001-01-01T00:00:00+01:00"
    for path in ("/api/audit", "/api/audit/export", "/api/metrics/tools"):
        for name, value in (("until", late), ("since", early)):
            response = await server.client.get(path, params={name: value})
            assert _code(response, 422) == "invalid_request", (path, name)
            assert response.json()["error"]["details"]["errors"][0]["path"] == ["query", name]
    # the default window (7 days before until) reaching past the first day there is
    response = await server.client.get("/api/metrics/tools", params={"until": "0001-01-02"})
    assert response.status_code == 200, response.text
    assert response.json()["since"].startswith("0001-01-01T00:00:00")
    for value in (late, early):
        response = await server.client.post(
            "/api/grants",
            json={
                "tool": "notes.add",
                "scope": "conversation",
                "conversation_id": conversation_id,
                "expires_at": value,
            },
        )
        assert _code(response, 422) == "invalid_request", value
    assert (await server.client.get("/api/grants")).json() == []


async def test_a_body_that_is_not_json_is_415_and_nothing_is_stored(server: LiveServer) -> None:
    # FastAPI does not parse a body declared as another type: the person got "Input should
    # be a valid dictionary or object to extract fields from" at path ["body"].
    conversation_id = await server.new_conversation()
    url = f"/api/conversations/{conversation_id}/messages"
    body = b'{"content": "hello"}'
    response = await server.client.post(url, content=body)  # no Content-Type
    assert _code(response, 415) == "unsupported_media_type"
    message = response.json()["error"]["message"]
    assert message == "Send the body as JSON (Content-Type: application/json)."
    for content_type in (
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
    ):
        response = await server.client.post(
            url, content=body, headers={"content-type": content_type}
        )
        assert _code(response, 415) == "unsupported_media_type", content_type
        message = response.json()["error"]["message"]
        assert message == (
            "Send the body as JSON (Content-Type: application/json); "
            f"this request's Content-Type is {content_type}."
        )
    detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    assert detail["messages"] == []
    # JSON in any of its spellings, and a bodiless POST, still work.
    for headers in (
        {"content-type": "application/json; charset=utf-8"},
        {"content-type": "Application/JSON"},
        {"content-type": "application/merge-patch+json"},
    ):
        response = await server.client.patch(
            f"/api/conversations/{conversation_id}", content=b'{"title": "t"}', headers=headers
        )
        assert response.status_code == 200, (headers, response.text)
    response = await server.client.post(
        f"/api/conversations/{conversation_id}/cancel", headers={"content-type": "text/plain"}
    )
    assert response.status_code == 200, response.text


async def test_a_json_body_that_cannot_even_be_decoded_is_422_json_invalid(
    server: LiveServer,
) -> None:
    """Bytes that are not UTF-8, arrays nested 50,000 deep and a number of 5,000 digits get
    the answer of any bad JSON (they got FastAPI's 400 "There was an error parsing the body"),
    each with its own reason (the number was once called "not UTF-8 text, or nested too
    deeply"), and nothing is stored."""
    conversation_id = await server.new_conversation()
    path = f"/api/conversations/{conversation_id}"
    for body, reason in (
        (b'{"content": "caf\xe9"}', "it is not UTF-8 text."),
        (b'{"content": "x", "a": ' + b"[" * 50_000 + b"]" * 50_000 + b"}", "nested too deeply"),
        (b'{"content": 1' + b"0" * 4_999 + b"}", "a number in it is too long to read"),
    ):
        response = await server.client.post(
            f"{path}/messages", content=body, headers={"content-type": "application/json"}
        )
        assert _code(response, 422) == "invalid_request"
        [error] = response.json()["error"]["details"]["errors"]
        assert (error["path"], error["rule"]) == (["body"], "json_invalid"), error
        assert error["message"].startswith("The body cannot be read as JSON: "), error
        assert reason in error["message"], error
    detail = (await server.client.get(path)).json()
    assert detail["messages"] == [] and detail["last_event_seq"] == 0, detail


async def test_field_errors_read_as_sentences_not_the_libraries_words(server: LiveServer) -> None:
    """A JSON syntax error said "JSON decode error" at the path ``["body", 1]``, a bad date
    "Must be a valid datetime or date, input is too short", a NUL "args/text contains a NUL
    character or an unpaired surrogate" (lowercase, no full stop); each is a sentence now."""
    conversation_id = await server.new_conversation()
    json_headers = {"content-type": "application/json"}

    def only_error(response: httpx.Response) -> dict[str, object]:
        assert _code(response, 422) == "invalid_request"
        [error] = response.json()["error"]["details"]["errors"]
        return dict(error)

    response = await server.client.post(
        f"/api/conversations/{conversation_id}/messages", content=b"{not json", headers=json_headers
    )
    assert only_error(response) == {
        "path": ["body"],
        "message": "The body is not valid JSON: expecting property name enclosed in double "
        "quotes (at character 2).",
        "rule": "json_invalid",
    }
    error = only_error(await server.client.get("/api/audit", params={"since": "yesterday"}))
    assert error["message"] == (
        "Must be a date and time such as 2026-12-02T09:30:00Z, or a date such as 2026-12-02."
    )
    error = only_error(
        await server.client.post("/api/tool-calls/call_x/decision", json={"type": "yolo"})
    )
    assert error["message"] == "Must be 'approve', 'edit', 'reject' or 'respond'."
    response = await server.client.post(
        "/api/tool-calls/call_x/decision",
        content=b'{"type": "edit", "args": {"text": "a\\u0000b"}}',
        headers=json_headers,
    )
    error = only_error(response)
    assert error["message"] == (
        "The text at args/text contains a NUL character or an unpaired surrogate."
    )
    detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    assert detail["messages"] == []
