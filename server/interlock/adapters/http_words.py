"""What a failed declarative HTTP call says to the person, beside the admin's detail.

Each function returns a :class:`~interlock.tools.ToolError` whose ``message`` is in the
person's terms (what happened to what they asked, and what to do: wait, check, or ask the
admin) and whose ``detail`` keeps the technical account for the admin, the log and the model
("GET https://api.example.com/v1/current answered HTTP 401", "no 'current'
(response.data_path)"). Codes and ``details`` are the adapter's stable ones
(:mod:`interlock.adapters.http_json`).
"""

from __future__ import annotations

from interlock.tools.base import ToolError

ASK_ADMIN = "Ask your admin."


def service(name: str) -> str:
    """How a sentence names the service behind a tool: ``the service behind “Weather”``."""
    return f"the service behind “{name}”"


def _first(text: str) -> str:
    return text[:1].upper() + text[1:]


def status_error(name: str, where: str, status: int) -> ToolError:
    """``upstream_error`` for a non-2xx answer, ``details={"status": status}``."""
    svc = _first(service(name))
    if status in (401, 407):
        said = f"{svc} refused the request (it needs new credentials). {ASK_ADMIN}"
    elif status == 403:
        said = f"{svc} refused the request (the credentials it has do not allow this). {ASK_ADMIN}"
    elif status in (404, 410):
        said = f"{svc} found nothing for this request. Check what you asked for; if it looks right, ask your admin."
    elif status == 429:
        said = f"{svc} is getting too many requests right now. Try again in a few minutes."
    elif status >= 500:
        said = f"{svc} had a problem on its side. Try again later."
    elif 300 <= status < 400:
        said = f"{svc} has moved to another address. {ASK_ADMIN}"
    else:
        said = f"{svc} turned the request down. {ASK_ADMIN}"
    note = " (redirects are not followed)" if 300 <= status < 400 else ""
    return ToolError(
        "upstream_error",
        said,
        details={"status": status},
        detail=f"{where} answered HTTP {status}{note}.",
    )


def unreachable(name: str, detail: str) -> ToolError:
    """``upstream_error``: no answer could be had (name not resolved, connection failed)."""
    return ToolError(
        "upstream_error",
        f"“{name}” could not reach its service. Try again later; if it keeps happening, "
        f"{ASK_ADMIN.lower()}",
        detail=detail,
    )


def refused_destination(name: str, detail: str) -> ToolError:
    """``permission_denied``: the address the tool is set up with is not allowed."""
    return ToolError(
        "permission_denied",
        f"“{name}” is set up to reach an address it is not allowed to reach. {ASK_ADMIN}",
        detail=detail,
    )


def timed_out(name: str, where: str, timeout_s: float) -> ToolError:
    """``timeout``: no answer within the tool's budget (nothing was changed)."""
    return ToolError(
        "timeout",
        f"{_first(service(name))} did not answer within {timeout_s:g} seconds. Try again later.",
        hint="Try again later.",
        detail=f"{where} did not finish within {timeout_s:g} seconds.",
    )


def outcome_unknown(name: str, where: str, what: str) -> ToolError:
    """``outcome_unknown``: a write was sent but its answer was lost."""
    return ToolError(
        "outcome_unknown",
        f"“{name}” sent the change, but {service(name)} did not confirm it, so it may or may "
        "not have happened. Check before trying again.",
        hint="Check whether the change happened before asking to try again; it was not retried.",
        detail=f"{where} was sent but {what}; it may or may not have taken effect.",
    )


def unreadable_answer(name: str, detail: str) -> ToolError:
    """``invalid_output``: the answer is not JSON, too large, or lacks a declared path."""
    return ToolError(
        "invalid_output",
        f"{_first(service(name))} sent an answer that could not be read. {ASK_ADMIN}",
        detail=detail,
    )


def bad_request(name: str, said: str, detail: str) -> ToolError:
    """``invalid_args``: the request could not be built from these arguments.

    ``said`` is the reason in the person's terms ("the value for “id” is missing"),
    ``detail`` the technical one the model fixes its arguments by.
    """
    return ToolError(
        "invalid_args", f"“{name}” could not send this request: {said}.", detail=detail
    )
