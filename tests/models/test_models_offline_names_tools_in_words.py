"""The offline model names a tool for the person by its title, never its provider-safe name.

Found in QA: a person asking "use web_search.fetch with {...}" was answered
"web_search_fetch returned: …" (the name providers see, with the dot mapped to "_"). The engine
now gives the offline model each bound tool's title, and every sentence naming a tool uses it
(a result, a failure, a rejection); a tool that is not bound is named as the person wrote it or
by its dotted name.
"""

from __future__ import annotations

from typing import Any

from interlock.models.offline.tool_names import (
    ASK_CHOICE,
    ASK_CONFIRM,
    ASK_FORM,
    NOTES_LIST,
    announce,
)
from interlock.settings import Settings
from interlock.tools import Permission, ToolContext, tool
from support.live import LiveServer, live_server
from support.sse import collect, terminals

URL_SCHEMA = {
    "type": "object",
    "properties": {"url": {"type": "string"}},
    "required": ["url"],
    "additionalProperties": False,
}


@tool(
    name="web_search.fetch",
    title="Fetch a web page",
    description="Fetch a web page.",
    permission=Permission.ALLOW,
    input_schema=URL_SCHEMA,
)
def fetch(args: dict[str, Any], ctx: ToolContext) -> str:
    return "Example Domain"


@tool(
    name="web_search.fetch-raw",
    title="Fetch a page's source",
    description="Fetch a page's HTML.",
    permission=Permission.ALLOW,
    input_schema=URL_SCHEMA,
)
def fetch_raw(args: dict[str, Any], ctx: ToolContext) -> str:
    raise RuntimeError("the site refused the connection")


async def _replies(server: LiveServer, text: str) -> list[str]:
    conversation_id = await server.new_conversation()
    await server.say(conversation_id, text)
    await collect(server.client, conversation_id, until=terminals(1))
    await server.idle()
    detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    return [str(m["content"]) for m in detail["messages"] if m["role"] == "assistant"]


async def _reply(server: LiveServer, text: str) -> str:
    return (await _replies(server, text))[-1]


async def test_results_and_failures_name_the_tool_by_its_title(make_settings: Any) -> None:
    settings: Settings = make_settings()
    async with live_server(settings) as server:
        server.services.registry.register(fetch)
        server.services.registry.register(fetch_raw)

        lead, said = await _replies(
            server, 'use web_search.fetch with {"url": "https://example.com"}'
        )
        assert lead == "I'll use the “Fetch a web page” tool."
        assert said == "“Fetch a web page” returned: Example Domain"

        failed = await _reply(
            server, 'use web_search.fetch-raw with {"url": "https://example.com"}'
        )
        assert failed.startswith("Sorry — I could not run “Fetch a page's source”"), failed

        assert "`failed`" not in failed  # no error code for the person
        for text in (lead, said, failed):
            assert "web_search_fetch" not in text
        assert "web_search.fetch" not in lead + said


def test_the_announcement_of_a_call_is_in_the_persons_terms_for_every_tool_kind() -> None:
    """Found in a tryout: "I'll use “Ask to fill in a form”." read the title as a command."""
    titles = {
        ASK_FORM: "Ask to fill in a form",
        ASK_CHOICE: "Ask to choose",
        ASK_CONFIRM: "Ask to confirm",
        "web_search_fetch": "Fetch a web page",
    }
    assert announce(ASK_FORM, titles) == "I'll ask you to fill in a form."
    assert announce(ASK_CHOICE, titles) == "I'll ask you to choose."
    assert announce(ASK_CONFIRM, {}) == "I'll ask you to confirm."
    assert announce("web_search_fetch", titles) == "I'll use the “Fetch a web page” tool."
    assert announce("web_search_fetch", {}, "web_search.fetch") == "I'll use `web_search.fetch`."
    assert announce(NOTES_LIST) == "I'll use `notes.list`."
