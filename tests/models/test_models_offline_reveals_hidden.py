"""The offline model quotes a tool's text as a card shows it: a bidirectional control or a
control character reads ``[U+202E]``, ``[U+001B]`` (``interlock.text.reveal_hidden``, the
web client's ``cards/reveal.ts``), never as raw characters that reverse the reply or show "�".

Found in QA: a result "\\x01\\x1b[31mred\\x1b[0m" was said back raw, so the reply showed
"�[31mred�[0m"; "Added note #6: buy oat milk \\u202eevil" read "buy oat milk live".
"""

from __future__ import annotations

from langchain_core.messages import ToolMessage

from interlock.models.offline.results import describe_result
from interlock.text import reveal_hidden


def _said(name: str, args: dict[str, object], text: str) -> str:
    return describe_result(name, args, ToolMessage(content=text, tool_call_id="call_1"))


def test_the_rule_writes_bidi_and_control_characters_as_code_points() -> None:
    assert reveal_hidden("from \u202eHal conv") == "from [U+202E]Hal conv"
    assert reveal_hidden("\x01\x1b[31mred\x1b[0m\x7f\x85 a\tb\r\nc \u2067x\u2069") == (
        "[U+0001][U+001B][31mred[U+001B][0m[U+007F][U+0085] a\tb\r\nc [U+2067]x[U+2069]"
    )
    kept = "שלום\u200f 🦊 e\u0301"
    assert reveal_hidden(kept) is kept
    assert reveal_hidden(reveal_hidden("a\u202eb")) == "a[U+202E]b"


def test_a_tool_result_with_escapes_reads_as_on_the_card() -> None:
    said = _said("web_fetch", {}, "\x01\x1b[31mred\x1b[0m")
    assert said.endswith("returned: [U+0001][U+001B][31mred[U+001B][0m")
    assert "\x1b" not in said


def test_a_note_with_an_override_reads_as_on_the_card() -> None:
    said = _said("notes_add", {"text": "x"}, "Added note #6: buy oat milk \u202eevil")
    assert said == "Done — I added note #6: “buy oat milk [U+202E]evil”."


def test_an_error_and_a_listing_read_the_same_way() -> None:
    error = ToolMessage(content="Error [failed]: bad \x1b[2J", tool_call_id="c", status="error")
    assert describe_result("notes_add", {}, error).endswith("Bad [U+001B][2J.")
    listing = _said("notes_list", {}, "#1: from \u202eHal conv")
    assert "- #1: from [U+202E]Hal conv" in listing


def test_the_rule_has_one_name() -> None:
    import interlock.text

    assert not hasattr(interlock.text, "reveal_bidi_controls")
    assert interlock.text.reveal_hidden("\u202e") == "[U+202E]"
