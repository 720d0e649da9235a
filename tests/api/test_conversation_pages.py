"""``GET /api/conversations`` in keyset pages: latest activity first, ``limit`` (default 50,
at most 200) at a time, the next page's ``cursor`` in the ``Next-Cursor`` header.

A walk lists every conversation exactly once even when new ones arrive meanwhile, ties of
``updated_at`` included; a cursor the server did not give out is 422 ``invalid_cursor``.
"""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from interlock.api import conversation_pages
from interlock.storage import Conversation
from support.live import LiveServer

BASE = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def _insert(server: LiveServer, owner_id: str, count: int, *, same_time: bool = False) -> list[str]:
    """Store ``count`` conversations of ``owner_id``, each a minute after the last (or all at
    one instant); return their ids, latest activity first as the list orders them."""
    rows = [
        Conversation(
            owner_id=owner_id,
            employee="ada",
            updated_at=BASE if same_time else BASE + timedelta(minutes=i),
        )
        for i in range(count)
    ]
    with server.services.db.session() as session:
        session.add_all(rows)
        session.commit()
    ordered = sorted(rows, key=lambda c: (c.updated_at, c.id), reverse=True)
    return [c.id for c in ordered]


async def _owner_id(server: LiveServer) -> str:
    return str((await server.client.get("/api/me")).json()["id"])


async def _walk(client: httpx.AsyncClient, limit: int) -> tuple[list[list[str]], list[str]]:
    """Every page's ids, and the cursors given."""
    pages: list[list[str]] = []
    cursors: list[str] = []
    cursor: str | None = None
    while True:
        params: dict[str, str | int] = {"limit": limit}
        if cursor is not None:
            params["cursor"] = cursor
        response = await client.get("/api/conversations", params=params)
        assert response.status_code == 200, response.text
        pages.append([c["id"] for c in response.json()])
        cursor = response.headers.get("next-cursor")
        if cursor is None:
            return pages, cursors
        cursors.append(cursor)
        assert len(pages) < 100


async def test_pages_list_every_conversation_once_latest_activity_first(
    server: LiveServer,
) -> None:
    owner = await _owner_id(server)
    ids = _insert(server, owner, 7)
    pages, cursors = await _walk(server.client, 3)
    assert [len(p) for p in pages] == [3, 3, 1]
    assert [i for p in pages for i in p] == ids
    assert len(set(cursors)) == 2

    # An exact multiple: the last full page has no cursor (no empty page after it).
    pages, _ = await _walk(server.client, 7)
    assert pages == [ids]


async def test_ties_of_updated_at_are_ordered_by_id_and_never_split_or_repeated(
    server: LiveServer,
) -> None:
    ids = _insert(server, await _owner_id(server), 5, same_time=True)
    pages, _ = await _walk(server.client, 2)
    assert [i for p in pages for i in p] == ids


async def test_new_conversations_do_not_shift_the_next_page(server: LiveServer) -> None:
    owner = await _owner_id(server)
    ids = _insert(server, owner, 4)
    first = await server.client.get("/api/conversations", params={"limit": 2})
    assert [c["id"] for c in first.json()] == ids[:2]
    created = await server.new_conversation()  # newer than all: the top of page 1
    second = await server.client.get(
        "/api/conversations", params={"limit": 2, "cursor": first.headers["next-cursor"]}
    )
    assert [c["id"] for c in second.json()] == ids[2:]
    assert "next-cursor" not in second.headers
    fresh = await server.client.get("/api/conversations", params={"limit": 2})
    assert [c["id"] for c in fresh.json()] == [created, ids[0]]


async def test_default_limit_is_50_and_at_most_200(server: LiveServer) -> None:
    owner = await _owner_id(server)
    ids = _insert(server, owner, 201)
    default = await server.client.get("/api/conversations")
    assert [c["id"] for c in default.json()] == ids[:50]
    assert set(default.json()[0]) >= {"id", "title", "employee", "status", "pending"}
    widest = await server.client.get("/api/conversations", params={"limit": 200})
    assert [c["id"] for c in widest.json()] == ids[:200]
    for limit in (0, 201, -1):
        refused = await server.client.get("/api/conversations", params={"limit": limit})
        assert refused.status_code == 422
        assert refused.json()["error"]["code"] == "invalid_request"


async def test_only_the_callers_conversations_are_listed(server: LiveServer) -> None:
    mine = _insert(server, await _owner_id(server), 2)
    _insert(server, "someone_else", 3)
    pages, _ = await _walk(server.client, 50)
    assert pages == [mine]


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


async def test_a_cursor_the_server_did_not_give_is_invalid_cursor(server: LiveServer) -> None:
    _insert(server, await _owner_id(server), 3)
    bad = [
        "",
        "not base64 !",
        _b64(b"not json"),
        _b64(b"[1, 2]"),
        _b64(json.dumps({"v": 2, "u": BASE.isoformat(), "i": "conv_x"}).encode()),
        _b64(json.dumps({"v": 1, "u": "yesterday", "i": "conv_x"}).encode()),
        _b64(json.dumps({"v": 1, "u": "2026-11-01T12:00:00", "i": "conv_x"}).encode()),  # no zone
        _b64(json.dumps({"v": 1, "u": BASE.isoformat(), "i": 5}).encode()),
        _b64(b"\xff\xfe"),
        "A" * 5000,
        # zoned times with no UTC form (datetime overflows), ids storage cannot hold
        _b64(json.dumps({"v": 1, "u": "0001-01-01T00:00:00+01:00", "i": "conv_x"}).encode()),
        _b64(json.dumps({"v": 1, "u": "9999-12-31T23:59:00-05:00", "i": "conv_x"}).encode()),
        _b64(json.dumps({"v": 1, "u": BASE.isoformat(), "i": "conv\u0000x"}).encode()),
        _b64(json.dumps({"v": 1, "u": BASE.isoformat(), "i": "conv\ud800x"}).encode()),
    ]
    for cursor in bad:
        response = await server.client.get("/api/conversations", params={"cursor": cursor})
        assert response.status_code == 422, (cursor, response.text)
        assert response.json()["error"]["code"] == "invalid_cursor", cursor


@pytest.mark.parametrize(
    "text",
    [b"[" * 3_000 + b"]" * 3_000, b'{"v": 1, "u": ' + b"1" * 5_000 + b', "i": "c"}'],
    ids=["nested-too-deeply", "5000-digit-number"],
)
async def test_a_cursor_json_cannot_read_is_invalid_cursor(
    server: LiveServer, monkeypatch: pytest.MonkeyPatch, text: bytes
) -> None:
    monkeypatch.setattr(conversation_pages, "MAX_CURSOR_CHARS", 1_000_000)  # past the length check
    response = await server.client.get("/api/conversations", params={"cursor": _b64(text)})
    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == "invalid_cursor"
