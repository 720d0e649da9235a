"""``/mcp`` at the HTTP level, as a new user and an attacker meet it (found in QA).

* A refusal before MCP starts (no token, unknown employee, bad listing option, foreign host,
  body too large) reaches a real ``mcp`` client as Interlock's code and sentence: the body is a
  JSON-RPC error, the only body MCP clients show (any other read "Server returned an error
  response", or "Not Found" for an unknown employee).
* ``/mcp/`` answers as ``/mcp`` does (MCP clients do not follow redirects).
* Behind a reverse proxy: every host the request names (``Host``, ``X-Forwarded-Host``) must be
  allowed; a browser origin on an allowed host is accepted even when the proxy rewrote ``Host``.
* A caller's huge tool name or action is not echoed back whole.
* A busy database is an ``is_error`` result (a call) or a readable MCP error (a listing).
* A client's name reaches the card without control characters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError
from sqlmodel import select

from interlock.errors import DatabaseBusy
from interlock.settings import Settings
from interlock.storage import ToolCall
from support.mcp import mcp_client, serve_mcp, text_of

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
ACCEPT = {"Accept": "application/json, text/event-stream"}


def _leaf(exc: BaseException) -> BaseException:
    """The first innermost exception of (nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    return exc


async def _refusal(url: str, token: str | None, query: str = "") -> str:
    """What a real MCP client reports when connecting is refused."""
    with pytest.raises(BaseException) as caught:  # an exception group around MCPError
        async with mcp_client(url, token, query=query):
            pass
    error = _leaf(caught.value)
    assert isinstance(error, MCPError), repr(error)
    return str(error)


async def test_refusals_reach_an_mcp_client_with_the_code_and_sentence(
    make_settings: Callable[..., Settings],
) -> None:
    async with serve_mcp(make_settings()) as server:
        assert (await _refusal(server.url, None)).startswith("[unauthorized] Send 'Authorization")
        assert (await _refusal(server.url, "nope")).startswith("[unauthorized]")
        assert await _refusal(server.url, server.token, "?employee=nobody") == (
            "[not_found] No employee 'nobody' to act through."
        )
        refused = await _refusal(server.url, server.token, "?exposition=stacked")
        assert refused.startswith("[invalid_mcp_option]") and "exposition" in refused
        long_slug = await _refusal(server.url, server.token, "?employee=" + "e" * 5000)
        assert long_slug.startswith("[not_found] No employee 'eee") and len(long_slug) < 200
        server.live.services.employees.update("scout", {"disabled": True})
        assert await _refusal(server.url, server.token, "?employee=scout") == (
            "[employee_disabled] Scout is disabled; nothing runs."
        )


async def test_a_body_over_the_limit_is_a_json_rpc_error_on_mcp_only(
    make_settings: Callable[..., Settings],
) -> None:
    async with serve_mcp(make_settings(max_request_bytes=64 * 1024)) as server:
        async with server.client() as client:
            with pytest.raises(MCPError, match=r"^\[payload_too_large\] The request is too large"):
                await client.call_tool("notes_add", {"text": "a" * 100_000})
        async with httpx.AsyncClient(base_url=server.url) as http:
            big = b"x" * 100_000
            on_mcp = await http.post("/mcp", content=big, headers=ACCEPT)
            on_api = await http.post("/api/conversations", content=big)
        assert on_mcp.status_code == on_api.status_code == 413
        assert on_mcp.json()["error"]["data"]["code"] == "payload_too_large"
        assert on_mcp.json()["jsonrpc"] == "2.0"
        assert on_api.json()["error"]["code"] == "payload_too_large"


async def test_mcp_with_a_trailing_slash_connects_without_a_redirect(
    make_settings: Callable[..., Settings],
) -> None:
    async with serve_mcp(make_settings()) as server:
        async with httpx.AsyncClient(base_url=server.url) as http:
            response = await http.post("/mcp/", json=PING, headers=ACCEPT)
        assert response.status_code == 401  # answered here, not 307 to /mcp
        async with mcp_client(f"{server.url}", server.token, query="/") as client:
            names = {t.name for t in (await client.list_tools()).tools}
        assert "notes_list" in names


@pytest.mark.parametrize(
    ("headers", "status", "code"),
    [
        # The proxy rewrote Host to loopback and says which host the client asked for.
        ({"X-Forwarded-Host": "evil.example"}, 421, "host_not_allowed"),
        ({"X-Forwarded-Host": "interlock.example.com, evil.example"}, 421, "host_not_allowed"),
        ({"X-Forwarded-Host": "interlock.example.com"}, None, None),
        ({"Host": "interlock.example.com:443"}, None, None),
        # A browser client on the public name, through a proxy that rewrote Host.
        ({"Origin": "https://interlock.example.com"}, None, None),
        ({"Origin": "https://evil.example"}, 403, "origin_not_allowed"),
        ({"Host": "interlock.example.com", "Origin": "https://evil.example"}, 403, None),
    ],
)
async def test_hosts_behind_a_proxy(
    make_settings: Callable[..., Settings],
    headers: dict[str, str],
    status: int | None,
    code: str | None,
) -> None:
    settings = make_settings(mcp_allowed_hosts=["interlock.example.com"])
    async with serve_mcp(settings) as server:
        async with httpx.AsyncClient(base_url=server.url) as http:
            auth = {"Authorization": f"Bearer {server.token}"}
            response = await http.post("/mcp", json=PING, headers={**ACCEPT, **auth, **headers})
    body: Any = response.json()
    if status is None:  # past the checks: the MCP library answers (no session yet)
        assert response.status_code == 400, response.text
        assert "session" in body["error"]["message"].lower()
    else:
        assert response.status_code == status
        if code is not None:
            assert body["error"]["data"]["code"] == code


async def test_a_huge_unknown_name_or_action_is_not_echoed_whole(
    make_settings: Callable[..., Settings],
) -> None:
    async with serve_mcp(make_settings()) as server:
        async with server.client() as client:
            unknown = await client.call_tool("x" * 50_000, {})
        async with server.client(query="?exposition=grouped") as client:
            action = await client.call_tool("notes", {"action": "y" * 50_000})
    assert unknown.is_error and text_of(unknown).startswith("Error [unknown_tool]: There is")
    assert len(text_of(unknown)) < 300
    assert action.is_error and text_of(action).startswith("Error [unknown_action]:")
    assert len(text_of(action)) < 300


async def test_a_busy_database_is_an_error_result_with_its_code(
    make_settings: Callable[..., Settings], monkeypatch: pytest.MonkeyPatch
) -> None:
    async with serve_mcp(make_settings()) as server:
        async with server.client() as client:
            await client.list_tools()
            outside = server.live.services.engine.outside

            def busy(*args: Any) -> Any:
                raise DatabaseBusy("The database is busy; nothing was written.")

            monkeypatch.setattr(outside, "plan", busy)
            result = await client.call_tool("notes_list", {})
            with pytest.raises(MCPError, match=r"^\[database_busy\] The database is busy"):
                await client.list_tools()
    assert result.is_error
    assert text_of(result) == "Error [database_busy]: The database is busy; nothing was written."


async def test_a_client_name_shows_its_control_characters(
    make_settings: Callable[..., Settings],
) -> None:
    """A client may name itself anything: newlines and a right-to-left override would let it
    disguise itself on the person's card. Found in QA: they were silently dropped; as the
    README's rule says, each reads ``[U+202E]`` as in a remote server's names."""
    info = types.Implementation(name="x", title="Evil\n\u202eClient\x00  " + "z" * 300, version="1")
    async with serve_mcp(make_settings()) as server:
        async with mcp_client(server.url, server.token, client_info=info) as client:
            await client.call_tool("notes_list", {})
        with server.live.services.db.session() as session:
            [call] = session.exec(select(ToolCall)).all()
    assert call.client_name is not None
    assert call.client_name.startswith("Evil [U+202E]Client[U+0000] z")
    assert len(call.client_name) == 200


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b"[]", "The body is a JSON array (a batch)"),
        (b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', "The body is a JSON array (a batch)"),
        (b'{"foo": 1}', "The body is not a JSON-RPC 2.0 message"),
        (
            b'{"jsonrpc": "1.0", "id": 1, "method": "ping"}',
            "The body is not a JSON-RPC 2.0 message",
        ),
        (b'{"jsonrpc": "2.0", "id": 1}', "The body is not a JSON-RPC 2.0 message"),
        (b'"ping"', "The body is not a JSON-RPC 2.0 message"),
    ],
)
async def test_json_that_is_no_json_rpc_message_is_refused_in_words_not_pydantics(
    make_settings: Callable[..., Settings], body: bytes, words: str
) -> None:
    """The library answered these with pydantic's whole report ("Validation error: 11
    validation errors for union[JSONRPCRequest,...] ... https://errors.pydantic.dev/...")."""
    async with serve_mcp(make_settings()) as server:
        headers = {
            **ACCEPT,
            "Content-Type": "application/json",
            "Authorization": f"Bearer {server.token}",
        }
        async with httpx.AsyncClient(base_url=server.url) as http:
            response = await http.post("/mcp", content=body, headers=headers)
            assert response.status_code == 400, response.text
            error = response.json()["error"]
            assert error["message"].startswith(f"[invalid_request] {words}"), error
            assert "pydantic" not in response.text and "JSONRPCRequest" not in response.text
            # Not JSON at all (or JSON nested too deeply, or holding a 5000-digit number):
            # JSON-RPC's parse error, with Interlock's code and the place in words.
            for garbage, why in (
                (b"not json", "The body cannot be read as JSON: a value is missing"),
                (b"{", "The body cannot be read as JSON: it stops too early"),
                (b"[" * 5_000 + b"]" * 5_000, "The body cannot be read as JSON: it is nested"),
                (b'{"id": 1' + b"0" * 4_999 + b"}", "The body cannot be read as JSON: a number"),
            ):
                response = await http.post("/mcp", content=garbage, headers=headers)
                assert response.status_code == 400, garbage[:20]
                error = response.json()["error"]
                assert error["code"] == -32700, error
                assert error["message"].startswith(f"[invalid_request] {why}"), error
                assert error["data"]["code"] == "invalid_request"
        # A real client still connects and calls on the same server.
        async with server.client() as client:
            assert not (await client.call_tool("notes_list", {})).is_error
