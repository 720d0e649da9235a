"""C25 — very large tool output (server part).

A tool returns 5 MB of text, a 200,000-line log, a single 1 MB line, and text with emoji and
control characters. Must: stream and reload payloads capped with the full size stated, the
rest fetchable (``GET /api/tool-calls/{id}/output``), the model told exactly what it received,
multi-line SSE data framed correctly. (The page staying responsive is the browser's part.)
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from langchain_core.messages import ToolMessage

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.tools import Permission, ToolContext, ToolResult, tool
from support.live import live_server
from support.sse import collect, terminals

LIMIT = 60_000
MAX_EVENT_BYTES = 200_000
"""A ``tool_call.completed`` event carries the cut text once (60,000 characters, up to 4 bytes
each in UTF-8 and a few more when JSON escapes control characters)."""

TRICKY = (
    "emoji 😀 👩‍👩‍👧 🇳🇴 e\u0301\r\nCRLF line\rCR only\nLF\u2028LS\u2029PS "
    "\x01\x02\x1b[31mred\x1b[0m\x7f\x85 tab\there data: not a field\n\nid: 99\nevent: x\n"
)
OUTPUTS: dict[str, str] = {
    "five_mb": "".join(f"{n:09d} lorem ipsum dolor sit amet\n" for n in range(140_000))[:5_000_000],
    "log": "".join(f"2026-12-01T10:00:00Z INFO line {n}\n" for n in range(200_000)),
    "one_line": "x" * 1_000_000,
    "tricky": TRICKY * 5_000 + "end\u0000",
}


@tool(
    name="test.dump",
    title="Dump output",
    description="Returns a large output.",
    input_schema={
        "type": "object",
        "properties": {"kind": {"type": "string", "enum": sorted(OUTPUTS)}},
        "required": ["kind"],
    },
    permission=Permission.ALLOW,
)
def dump(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ToolResult(text=OUTPUTS[args["kind"]], data={"kind": args["kind"]})


def _expected_note(whole: str) -> str:
    total_lines = whole.count("\n") + 1
    lines = ""
    if total_lines > 1:
        shown = whole[:LIMIT].count("\n") + 1
        partly = "" if whole[LIMIT - 1] == "\n" else ", the last one partly"
        lines = f" (lines 1 to {shown:,} of {total_lines:,}{partly})"
    return (
        f"\n\n[Result cut: showing the first {LIMIT:,} of {len(whole):,} characters{lines}; "
        f"{len(whole) - LIMIT:,} cut.]"
    )


async def _raw_frames(client: httpx.AsyncClient, conversation_id: str, count: int) -> list[str]:
    """Read ``count`` raw SSE frames (text between blank lines) from the start."""
    frames: list[str] = []
    buffer = ""
    async with client.stream("GET", f"/api/conversations/{conversation_id}/events") as response:
        async for chunk in response.aiter_text():
            buffer += chunk
            while "\r\n\r\n" in buffer or "\n\n" in buffer:
                sep = "\r\n\r\n" if "\r\n\r\n" in buffer else "\n\n"
                frame, buffer = buffer.split(sep, 1)
                frames.append(frame)
            if len([f for f in frames if not f.startswith(":")]) >= count:
                break
    return [f for f in frames if not f.startswith(":")]


@pytest.mark.parametrize("kind", sorted(OUTPUTS))
async def test_case_c25_very_large_tool_output(case_settings: Settings, kind: str) -> None:
    clean = OUTPUTS[kind].replace("\x00", "\ufffd")
    model = ScriptedChatModel(
        responses=[scripted_message("Dumping.", ("test_dump", {"kind": kind})), "Done."]
    )
    async with live_server(case_settings, model=model) as server:
        server.services.registry.register(dump)
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "dump it")
        log = await collect(server.client, conversation_id, until=terminals(1), timeout_s=60)
        await server.idle(60)
        assert log.types[-1] == "run.completed", log.types

        # Stream: capped, with the full size stated.
        (completed,) = log.of("tool_call.completed")
        call = completed["tool_call"]
        cut = clean[:LIMIT] + _expected_note(clean)
        assert call["status"] == "succeeded"
        assert (call["result_chars"], call["result_cut"]) == (len(clean), True)
        assert call["result_text"] == cut
        assert completed["message"]["content"] == ""  # the same text is not sent twice
        for frame in log.frames:
            assert len(json.dumps(frame.data, ensure_ascii=False).encode()) < MAX_EVENT_BYTES

        # The model was told exactly what it received.
        (seen,) = [m for m in model.received[1] if isinstance(m, ToolMessage)]
        assert seen.content == cut

        # Reload: capped the same way.
        detail = await server.client.get(f"/api/conversations/{conversation_id}")
        assert len(detail.content) < MAX_EVENT_BYTES
        reloaded = [c for m in detail.json()["messages"] for c in m["tool_calls"]]
        assert [(c["result_text"], c["result_chars"], c["result_cut"]) for c in reloaded] == [
            (cut, len(clean), True)
        ]

        # The rest is fetchable, byte for byte.
        whole = await server.client.get(f"/api/tool-calls/{call['id']}/output")
        assert whole.status_code == 200
        assert whole.headers["content-type"] == "text/plain; charset=utf-8"
        assert whole.content.decode("utf-8") == clean

        # Raw SSE framing: every line of every frame is a field; the JSON holds the rest.
        raw = await _raw_frames(server.client, conversation_id, len(log.frames))
        for frame in raw:
            lines = frame.replace("\r\n", "\n").split("\n")
            assert all(line.split(":", 1)[0] in ("id", "event", "data") for line in lines), frame[
                :200
            ]
        events = [
            json.loads("\n".join(line[6:] for line in f.split("\n") if line.startswith("data: ")))
            for f in raw
        ]
        assert [e["type"] for e in events] == log.types


async def test_case_c25_a_short_output_is_whole_and_fetchable(case_settings: Settings) -> None:
    model = ScriptedChatModel(responses=[scripted_message("", ("notes_list", {})), "Done."])
    async with live_server(case_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "list")
        log = await collect(server.client, conversation_id, until=terminals(1))
        await server.idle()
        call = log.of("tool_call.completed")[0]["tool_call"]
        assert (call["result_text"], call["result_chars"], call["result_cut"]) == (
            "No notes yet.",
            13,
            False,
        )
        whole = await server.client.get(f"/api/tool-calls/{call['id']}/output")
        assert whole.text == "No notes yet."
        missing = await server.client.get("/api/tool-calls/call_nope/output")
        assert missing.status_code == 404
        assert missing.json()["error"]["code"] == "not_found"
