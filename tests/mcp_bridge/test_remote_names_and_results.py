"""Pure parts of the remote MCP sources: Interlock names for remote tools, remote results."""

from __future__ import annotations

import base64
import random

import mcp_types as types
import pytest

from interlock.mcp_bridge.names import interlock_names
from interlock.mcp_bridge.results import MAX_ERROR_CHARS, tool_result
from interlock.tools import ToolError, provider_safe_name
from interlock.tools.registration import TOOL_NAME_RE

ODD = ["a.b/c", "get user", "x" * 80, "Get_User", "get_user", "get-user", "日本語", "", "tool"]


def test_names_are_valid_unique_and_the_same_whatever_the_order() -> None:
    names = interlock_names("srv", ODD)
    assert set(names) == set(ODD)
    assert all(TOOL_NAME_RE.fullmatch(n) and n.startswith("mcp.srv.") for n in names.values())
    providers = [provider_safe_name(n) for n in names.values()]
    assert len(set(providers)) == len(providers)
    assert all(len(p) <= 64 for p in providers)
    shuffled = ODD[:]
    random.Random(7).shuffle(shuffled)
    assert interlock_names("srv", shuffled) == names
    # Clean names keep their spelling; the others that clash get a hash of their own name.
    assert names["get_user"] == "mcp.srv.get_user"
    assert names["tool"] == "mcp.srv.tool"
    assert names["get user"].startswith("mcp.srv.get_user-")
    assert names["a.b/c"] == "mcp.srv.a_b_c"


def test_a_result_keeps_text_describes_other_blocks_and_passes_data() -> None:
    png = base64.b64encode(b"\x89PNG" + b"0" * 2044).decode()
    result = types.CallToolResult(
        content=[
            types.TextContent(text="first"),
            types.ImageContent(data=png, mime_type="image/png"),
            types.EmbeddedResource(
                resource=types.TextResourceContents(uri="file:///a.txt", text="inside")
            ),
        ],
        structured_content={"n": 1},
    )
    out = tool_result(result, server="srv", remote_name="t")
    assert out.text == "first\n\n[image: image/png, 2 kB]\n\ninside"
    assert out.data == {"n": 1}
    data_only = tool_result(
        types.CallToolResult(content=[], structured_content={"n": 2}), server="s", remote_name="t"
    )
    assert data_only.text == '{"n": 2}'


def test_is_error_is_failed_with_the_remote_words_cut_to_a_limit() -> None:
    long = "disk full " * 1000
    result = types.CallToolResult(content=[types.TextContent(text=long)], is_error=True)
    with pytest.raises(ToolError) as failed:
        tool_result(result, server="srv", remote_name="save")
    assert failed.value.code == "failed"
    assert failed.value.message.startswith(
        "The MCP server 'srv' reported an error from its tool 'save': disk full"
    )
    assert len(failed.value.message) < MAX_ERROR_CHARS + 200
