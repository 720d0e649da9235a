"""A stdio MCP server whose process exits: Interlock says so (exit code, the last lines of its
stderr, bounded) instead of a closed connection or a late answer, and retries as for any
server that is down."""

from __future__ import annotations

import sys
from typing import Any

from interlock.mcp_bridge.stdio import MAX_LINE_CHARS, TAIL_LINES
from support.waits import wait_until

CALL_TIMEOUT_S = 600.0
"""Far longer than any wait below: a server read as "did not answer in time" fails them."""


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


async def _down(make_sources: Any, command: list[str]) -> Any:
    sources, _registry = await make_sources(
        {"files": {"command": command}}, wait=False, mcp_call_timeout_s=CALL_TIMEOUT_S
    )
    session = sources.sources["files"].session
    await wait_until(lambda: session.state == "down", timeout_s=30, what="down")
    return session


async def test_a_server_that_exits_at_once_says_its_exit_code_and_last_stderr_lines(
    make_sources: Any,
):
    session = await _down(
        make_sources,
        _python(
            "import sys; print('loading /srv/files.toml', file=sys.stderr); "
            "sys.exit('fatal: no config at /srv/files.toml')"
        ),
    )
    assert session.error == (
        "its process exited with code 1; its last lines on stderr: "
        "“loading /srv/files.toml” “fatal: no config at /srv/files.toml”"
    )
    message = session.down_message()
    assert message.startswith(
        "The MCP server 'files' is not available: its process exited with code 1; "
    ), message
    assert "Interlock tries again in" in message
    # Tried again (and still exiting), saying the same.
    failures = session.failures
    await wait_until(lambda: session.failures > failures, timeout_s=30, what="a second try")
    assert session.error.startswith("its process exited with code 1; ")


async def test_what_it_wrote_is_bounded_and_shown_safely(make_sources: Any):
    code = (
        "import sys\n"
        "for i in range(50): print(f'line {i}', file=sys.stderr)\n"
        "print('x' * 10000, file=sys.stderr)\n"
        "print('evil\\u202etxt.exe', file=sys.stderr)\n"
        "sys.exit(7)\n"
    )
    session = await _down(make_sources, _python(code))
    head, _, quoted = session.error.partition("; its last lines on stderr: ")
    assert head == "its process exited with code 7"
    lines = quoted.removeprefix("“").removesuffix("”").split("” “")
    assert len(lines) == TAIL_LINES
    assert lines[0] == "line 49"
    assert len(lines[1]) == MAX_LINE_CHARS and lines[1].endswith("…")
    assert lines[2] == "evil[U+202E]txt.exe"


async def test_a_command_that_is_not_there_says_it_cannot_be_started(make_sources: Any):
    session = await _down(make_sources, ["interlock-test-no-such-command", "--serve"])
    assert session.error.startswith("its command cannot be started (not found); "), session.error
    assert "interlock-test-no-such-command" in session.error


async def test_a_server_whose_child_keeps_its_output_open_is_still_seen_exiting(
    make_sources: Any,
):
    # The process exits; a child it left behind keeps stdout open, so the connection does not
    # close: the exit code is what tells.
    session = await _down(
        make_sources,
        ["/bin/sh", "-c", "sleep 30 & echo 'cannot bind port 9000' >&2; exit 4"],
    )
    assert session.error == (
        "its process exited with code 4; its last lines on stderr: “cannot bind port 9000”"
    )
