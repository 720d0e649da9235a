"""C19: a remote MCP server offers tools named ``a.b/c``, ``get user``, an 80-character name,
and names that become the same once cleaned (``Get_User``, ``get_user``, ``get-user``,
``get user``).

Must: each gets a unique provider-safe name (at most 64 characters of ``[a-zA-Z0-9_-]``),
calls dispatch to the original remote name, the card shows the original name, and no model
request fails because of a name.
"""

from __future__ import annotations

import re

from interlock.tools import ToolContext
from support.mcp_remote import RemoteMcp

ODD_NAMES = ["a.b/c", "get user", "l" * 80, "Get_User", "get_user", "get-user"]
PROVIDER_ALPHABET = re.compile(r"[a-zA-Z0-9_-]{1,64}")  # the case's rule (Interlock maps "-" too)


async def test_case_c19_odd_remote_names_get_unique_provider_safe_names(
    remote: RemoteMcp, make_sources, ctx: ToolContext
):
    sources, registry = await make_sources({"odd": {"url": remote.url}})
    rows = {t.remote_name: t for t in sources.sources["odd"].tools}
    tools = {name: registry.get(rows[name].name) for name in ODD_NAMES}
    assert all(tool is not None for tool in tools.values())

    # Unique, provider-safe names, also across every tool the server offers.
    specs = registry.provider_specs(registry.tools())
    provider_names = [spec["function"]["name"] for spec in specs]
    assert len(set(provider_names)) == len(provider_names)
    assert all(PROVIDER_ALPHABET.fullmatch(name) for name in provider_names)
    assert rows["get_user"].name == "mcp.odd.get_user"  # a clean name keeps its spelling
    # Dashes map to "_" too, so "get-user" would be get_user's provider name: it gets a hash.
    assert rows["get-user"].name.startswith("mcp.odd.get-user-")
    assert all("-" not in name for name in provider_names)

    for remote_name, tool in tools.items():
        assert tool is not None
        # The model calls the provider name; it leads back to this tool...
        assert registry.by_provider_name(tool.provider_name) is tool
        # ...and the call reaches the server under the original name.
        result = await registry.execute(tool, {"text": "hi"}, ctx)
        assert result.text == f"{remote_name} ran with 'hi'"
        # The card names the original tool.
        assert tool.confirmation is not None
        card = tool.confirmation({"text": "hi"}, ctx)
        assert f"“{remote_name}”" in card.summary  # type: ignore[union-attr]
        assert tool.title == remote_name
