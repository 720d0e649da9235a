"""A pick: a person clicking one of a choice card's options, told apart from an edit.

A choice card of suggestions (args ``{"options": [...], "option": ...}``) is decided with an
``edit`` whose args are the proposal with ``option`` set to the option clicked. The audit log
records that as ``picked`` (:data:`~interlock.audit.chain.Outcome.picked`), so that its outcome
filter and the tool metrics do not count a pick as an edit of the call.
"""

from __future__ import annotations

from typing import Any


def is_pick(proposed: Any, edited: Any) -> bool:
    """True when ``edited`` is ``proposed`` with only ``option`` set to one of its ``options``.

    Args:
        proposed: The call's proposed args.
        edited: The args of the person's ``edit``.

    Returns:
        False for any other change (another field, an option not offered, no ``options``).
    """
    if not isinstance(proposed, dict) or not isinstance(edited, dict):
        return False
    options = proposed.get("options")
    if not isinstance(options, list) or "option" not in edited:
        return False
    picked = edited["option"]
    rest = {key: value for key, value in edited.items() if key != "option"}
    same = rest == {key: value for key, value in proposed.items() if key != "option"}
    return same and any(picked == option and type(picked) is type(option) for option in options)
