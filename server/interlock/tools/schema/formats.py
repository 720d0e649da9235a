"""Format checking: the ``format`` checks every validation uses, and the start-up proof.

:data:`FORMAT_CHECKER` has every Draft 2020-12 format check jsonschema offers, with strict
``email``/``idn-email`` checks from ``email-validator``. :func:`check_format_checkers` proves at
start-up that ``uri`` and ``email`` are really checked (jsonschema silently skips a format whose
optional library is missing).
"""

from __future__ import annotations

from email_validator import EmailNotValidError, validate_email
from jsonschema import Draft202012Validator, FormatChecker  # type: ignore[import-untyped]


def _check_email(instance: object) -> bool:
    """Format ``email`` (RFC 5321 mailbox, ASCII only), checked by ``email-validator``.

    jsonschema's own check only looks for an ``@``. Interlock needs the address to be usable,
    so the domain must look globally deliverable (a dotted public name, not ``localhost`` or a
    special-use name such as ``.test``); no DNS look-up is made.

    Raises:
        EmailNotValidError: When the address is not valid (turned into a format error).
    """
    if not isinstance(instance, str):
        return True
    validate_email(instance, check_deliverability=False, allow_smtputf8=False)
    return True


def _check_idn_email(instance: object) -> bool:
    """Format ``idn-email`` (RFC 6531): as :func:`_check_email`, non-ASCII characters allowed.

    Raises:
        EmailNotValidError: When the address is not valid (turned into a format error).
    """
    if not isinstance(instance, str):
        return True
    validate_email(instance, check_deliverability=False, allow_smtputf8=True)
    return True


def _build_format_checker() -> FormatChecker:
    checker = FormatChecker(formats=())
    # Start from every check jsonschema has for Draft 2020-12 (``uri`` needs ``rfc3987``), then
    # make the email formats strict.
    checker.checkers = dict(Draft202012Validator.FORMAT_CHECKER.checkers)
    checker.checks("email", raises=EmailNotValidError)(_check_email)
    checker.checks("idn-email", raises=EmailNotValidError)(_check_idn_email)
    return checker


FORMAT_CHECKER: FormatChecker = _build_format_checker()
"""The format checker used for every validation (Draft 2020-12 formats, strict email)."""


def check_format_checkers() -> None:
    """Prove at start-up that ``format`` is really checked.

    jsonschema silently skips a format whose optional library is missing, which would let
    ``"not a url"`` through a ``uri`` field. ``uri`` is checked by registration: jsonschema
    registers its check only when ``rfc3987`` (or ``rfc3986-validator``) imports; running a
    value through it would compile that library's URI grammar, a fortieth of a second of every
    start (issue 7, benchmark f), on a path the first tool call with a ``uri`` argument takes
    anyway. The email checks are ours and cheap: known-bad values are run through them. It is
    called by :class:`interlock.tools.ToolRegistry`.

    Raises:
        RuntimeError: When ``uri`` has no check or ``email`` accepts a bad value; install the
            ``jsonschema[format]`` extra, ``rfc3987`` and ``email-validator``.
    """
    missing = [] if "uri" in FORMAT_CHECKER.checkers else ["uri (no check registered)"]
    missing += [
        f"email (accepted {value!r})"
        for value in ("nobody", "nobody@")
        if Draft202012Validator({"format": "email"}, format_checker=FORMAT_CHECKER).is_valid(value)
    ]
    if missing:
        raise RuntimeError(
            "JSON Schema format checks are not active: "
            + ", ".join(missing)
            + ". Install jsonschema[format], rfc3987 and email-validator."
        )
