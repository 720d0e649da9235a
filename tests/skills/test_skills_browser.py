"""The browser skill's card sentence: the purpose the model gives is quoted as the reason."""

from __future__ import annotations

import pytest

from interlock.tools import ToolRegistry


@pytest.mark.parametrize(
    ("purpose", "summary"),
    [
        # "to to quote it" before: the purpose was spliced in after "to".
        ("to quote it", "Share the text you have selected on this page. Reason: to quote it."),
        (
            "I want to cite it.",
            "Share the text you have selected on this page. Reason: I want to cite it.",
        ),
        (
            "  summarise   it ",
            "Share the text you have selected on this page. Reason: summarise it.",
        ),
        ("", "Share the text you have selected on this page."),
    ],
)
async def test_the_selection_card_quotes_the_purpose_as_the_reason(
    builtin_registry: ToolRegistry, purpose: str, summary: str
) -> None:
    tool = builtin_registry.get("browser.selection")
    assert tool.confirmation is not None

    confirmation = tool.confirmation({"purpose": purpose}, None)  # type: ignore[arg-type]

    assert confirmation.summary == summary
