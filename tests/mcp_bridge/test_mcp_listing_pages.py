"""Pagination of the MCP tool list: stable opaque cursors over the list sorted by name."""

from __future__ import annotations

import base64

import pytest

from interlock.errors import BadRequest
from interlock.mcp_bridge import paging
from interlock.mcp_bridge.exposition import Exposition
from interlock.mcp_bridge.options import ListingOptions
from interlock.settings import Settings


def walk(exposition: Exposition, page_size: int) -> list[list[str]]:
    pages: list[list[str]] = []
    cursor = None
    while True:
        result = exposition.list_page(cursor, page_size)
        pages.append([t.name for t in result.tools])
        cursor = result.next_cursor
        if cursor is None:
            return pages
        assert len(pages) < 100, "the walk does not end"


def test_the_default_page_size_setting_is_50():
    assert Settings(_env_file=None).mcp_page_size == 50


def test_a_walk_over_several_pages_lists_every_tool_once_in_name_order(registry, make_tool):
    for index in range(23):
        make_tool(f"bulk.tool_{index:02d}")

    pages = walk(Exposition(registry.tools()), page_size=10)

    assert [len(p) for p in pages] == [10, 10, 3]
    listed = [name for p in pages for name in p]
    assert listed == sorted(f"bulk_tool_{i:02d}" for i in range(23))


def test_a_list_that_fits_one_page_has_no_next_cursor(builtin):
    result = Exposition(builtin.tools()).list_page(None, 50)

    assert result.next_cursor is None
    assert len(result.tools) == len(builtin.tools())


def test_an_exact_multiple_of_the_page_size_ends_without_an_empty_page(registry, make_tool):
    for index in range(4):
        make_tool(f"bulk.t{index}")

    assert walk(Exposition(registry.tools()), page_size=2) == [
        ["bulk_t0", "bulk_t1"],
        ["bulk_t2", "bulk_t3"],
    ]


def test_grouped_listings_page_too(registry, make_tool):
    for namespace in ("a", "b", "c"):
        for action in ("x", "y"):
            make_tool(f"{namespace}.{action}")

    pages = walk(Exposition(registry.tools(), ListingOptions(exposition="grouped")), 2)

    assert pages == [["a", "b"], ["c"]]


def test_a_cursor_stays_valid_when_tools_come_and_go(registry, make_tool):
    for index in range(6):
        make_tool(f"bulk.t{index}")
    first = Exposition(registry.tools()).list_page(None, 3)
    make_tool("bulk.a_new_first_tool")  # sorts before every page seen so far
    gone = {"bulk.t3"}

    later = Exposition([t for t in registry.tools() if t.name not in gone])
    second = later.list_page(first.next_cursor, 3)

    assert [t.name for t in first.tools] == ["bulk_t0", "bulk_t1", "bulk_t2"]
    assert [t.name for t in second.tools] == ["bulk_t4", "bulk_t5"]
    assert second.next_cursor is None


@pytest.mark.parametrize(
    "cursor",
    [
        "",
        "not a cursor",
        "!!!",
        base64.urlsafe_b64encode(b'{"v": 2, "after": "x"}').decode(),
        base64.urlsafe_b64encode(b'{"after": 3, "v": 1}').decode(),
        base64.urlsafe_b64encode(b"[1, 2]").decode(),
        base64.urlsafe_b64encode(b"\xff\xfe").decode(),
        "e" * 2000,
    ],
)
def test_a_cursor_this_server_did_not_give_out_is_refused(builtin, cursor):
    with pytest.raises(BadRequest) as caught:
        Exposition(builtin.tools()).list_page(cursor, 5)

    assert caught.value.code == "invalid_cursor"
    assert "list again from the first page" in caught.value.message


def test_a_page_size_below_one_is_a_programming_error(builtin):
    with pytest.raises(ValueError, match="page_size"):
        Exposition(builtin.tools()).list_page(None, 0)


def test_a_grouped_page_survives_the_wire_as_mcp_json(builtin):
    import mcp.types as types

    result = Exposition(builtin.tools(), ListingOptions(exposition="grouped")).list_page(None, 3)

    wire = result.model_dump_json(by_alias=True, exclude_none=True)
    back = types.ListToolsResult.model_validate_json(wire)

    assert '"inputSchema"' in wire and '"readOnlyHint"' in wire and '"nextCursor"' in wire
    assert back.tools == result.tools
    assert back.next_cursor == result.next_cursor


@pytest.mark.parametrize(
    "text",
    [b"[" * 50_000 + b"]" * 50_000, b'{"v": 1, "after": ' + b"1" * 5_000 + b"}"],
    ids=["nested-too-deeply", "5000-digit-number"],
)
def test_a_cursor_json_cannot_read_is_invalid_cursor(builtin, monkeypatch, text):
    monkeypatch.setattr(paging, "MAX_CURSOR_CHARS", 1_000_000)  # past the length check
    cursor = base64.urlsafe_b64encode(text).decode()

    with pytest.raises(BadRequest) as caught:
        Exposition(builtin.tools()).list_page(cursor, 5)

    assert caught.value.code == "invalid_cursor"
