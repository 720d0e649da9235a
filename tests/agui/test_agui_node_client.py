"""The official AG-UI client (``@ag-ui/client`` 1.0.0, ``tests/agui/node``) under Node against
Interlock on loopback: a message, the interrupt, a resume with an edit, the run finishing
and the executed args stored. Also the README's example, run word for word."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from interlock.storage.users import create_user
from support.live import LiveServer

NODE_DIR = Path(__file__).parent / "node"
CLIENT_PACKAGE = NODE_DIR / "node_modules" / "@ag-ui" / "client" / "package.json"
README = Path(__file__).resolve().parents[2] / "README.md"
NODE_TIMEOUT_S = 60.0


@pytest.fixture
def node() -> str:
    """The ``node`` binary, with ``@ag-ui/client`` installed (``make test`` does it)."""
    binary = shutil.which("node")
    if binary is None or not CLIENT_PACKAGE.exists():
        message = (
            "node or tests/agui/node/node_modules is missing: run `make agui-client` "
            "(part of `make test`)"
        )
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    assert json.loads(CLIENT_PACKAGE.read_text())["version"] == "1.0.0"
    return binary


async def _node(node: str, script: Path, *args: str, env: dict[str, str] | None = None) -> str:
    """Run ``script`` under Node (bounded); return its stdout, failing with its stderr."""
    process = await asyncio.create_subprocess_exec(
        node,
        str(script),
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )
    try:
        async with asyncio.timeout(NODE_TIMEOUT_S):
            out, err = await process.communicate()
    except TimeoutError:
        process.kill()
        await process.wait()
        raise
    assert process.returncode == 0, err.decode()
    return out.decode()


async def _stored_call(server: LiveServer, conversation_id: str, call_id: str) -> dict[str, Any]:
    detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    return next(c for m in detail["messages"] for c in m["tool_calls"] if c["id"] == call_id)


async def test_the_official_client_sends_gets_the_interrupt_resumes_with_an_edit(
    server: LiveServer, node: str
) -> None:
    conversation_id = await server.new_conversation()
    out = await _node(
        node, NODE_DIR / "round_trip.mjs", f"{server.url}/api/ag-ui/{conversation_id}"
    )
    summary = json.loads(out.strip().splitlines()[-1])

    first = summary["first"]
    assert first["errors"] == [] and first["outcome"] == "interrupt"
    assert first["types"][0] == "RUN_STARTED" and first["types"][-1] == "RUN_FINISHED"
    assert {"TEXT_MESSAGE_CONTENT", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"} <= set(
        first["types"]
    )
    interrupt = summary["interrupt"]
    assert interrupt["reason"] == "tool_call"
    assert interrupt["toolCallId"] == interrupt["id"]
    assert summary["proposedArgs"] == {"text": "buy milk"}  # the client's own tool call record

    # An edit that breaks the tool's JSON Schema: a RUN_ERROR; the interrupt stays open.
    assert summary["bad"]["types"] == ["RUN_ERROR"]
    assert [e["code"] for e in summary["bad"]["errors"]] == ["invalid_args"]
    assert summary["stillPending"] == [interrupt["id"]]

    second = summary["second"]
    assert second["errors"] == [] and second["outcome"] == "success"
    assert "TOOL_CALL_RESULT" in second["types"] and "TOOL_CALL_START" not in second["types"]
    assert summary["pendingAfter"] == []
    tool_message = next(m for m in summary["messages"] if m["role"] == "tool")
    assert tool_message["toolCallId"] == interrupt["id"]
    assert [m["role"] for m in summary["messages"]] == ["user", "assistant", "tool", "assistant"]
    assert all(re.fullmatch(r"msg-\d+", m["id"]) for m in summary["messages"])
    assert "buy oat milk" in summary["messages"][-1]["content"]

    stored = await _stored_call(server, conversation_id, interrupt["id"])
    assert stored["status"] == "succeeded"
    assert stored["executed_args"] == {"text": "buy oat milk"}
    assert stored["decision"]["type"] == "edit"


def _readme_blocks() -> dict[str, str]:
    text = README.read_text(encoding="utf-8")
    start = text.index("\n## Drive Interlock from an AG-UI client\n")
    end = text.find("\n## ", start + 1)
    blocks = re.finditer(r"^```(\w+) title=(\S+)\n(.*?)^```", text[start:end], re.M | re.S)
    return {m.group(2): m.group(3) for m in blocks}


async def test_the_readme_example_runs_word_for_word(
    server: LiveServer, node: str, tmp_path: Path
) -> None:
    blocks = _readme_blocks()
    script = tmp_path / "agui-example.mjs"
    script.write_text(blocks["agui-example.mjs"], encoding="utf-8")
    (tmp_path / "node_modules").symlink_to(NODE_DIR / "node_modules", target_is_directory=True)

    out = await _node(node, script, env={"INTERLOCK_URL": server.url})

    assert out == blocks["output"]
    [conversation] = (await server.client.get("/api/conversations")).json()
    detail = (await server.client.get(f"/api/conversations/{conversation['id']}")).json()
    [call] = [c for m in detail["messages"] for c in m["tool_calls"]]
    assert call["executed_args"] == {"text": "buy oat milk"}


async def test_the_readme_example_says_to_set_the_token_once_a_user_exists(
    server: LiveServer, node: str, tmp_path: Path
) -> None:
    """The tryout: without INTERLOCK_TOKEN the example crashed with an unhandled error."""
    create_user(server.services.db, "ann")
    script = tmp_path / "agui-example.mjs"
    script.write_text(_readme_blocks()["agui-example.mjs"], encoding="utf-8")
    (tmp_path / "node_modules").symlink_to(NODE_DIR / "node_modules", target_is_directory=True)
    env = {k: v for k, v in os.environ.items() if k != "INTERLOCK_TOKEN"}
    process = await asyncio.create_subprocess_exec(
        node,
        str(script),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**env, "INTERLOCK_URL": server.url},
    )
    async with asyncio.timeout(NODE_TIMEOUT_S):
        out, err = await process.communicate()

    assert process.returncode == 1 and out == b""
    said = err.decode().strip()
    assert said.startswith("Interlock refused the request (401): "), said
    assert said.endswith("Set INTERLOCK_TOKEN to your token."), said
    assert "\n" not in said  # one sentence, no stack trace
