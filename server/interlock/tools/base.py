"""What a tool is: its declaration, the context it runs in, what it returns and how it fails."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from interlock.storage import Database
    from interlock.store import ToolStore

TOOL_ERROR_CODES = frozenset(
    {
        "invalid_args",
        "not_found",
        "permission_denied",
        "rejected",
        "cancelled",
        "timeout",
        "failed",
        "internal",
        "upstream_error",
        "invalid_output",
        "outcome_unknown",
    }
)
"""Stable tool error codes. ``upstream_error``: a remote service answered with a non-2xx
status (``details={"status": <int>}``) or could not be reached; ``invalid_output``: a result
that does not fit its declared shape (``output_schema``, a missing response path, not JSON);
``outcome_unknown``: a write may have reached the remote service but no answer confirmed it
(never retried automatically; see docs/skills-and-employees.md, "Declarative tools")."""


class Permission(StrEnum):
    """Whether a call runs at once (``ALLOW``), pauses for a person's decision (``ASK``), or
    is never offered to the model (``DENY``; a call to it fails ``permission_denied``)."""

    ALLOW = "ALLOW"
    ASK = "ASK"
    DENY = "DENY"


@dataclass(frozen=True)
class ToolAnnotations:
    """Hints about a tool's behaviour as declared, named as in MCP's ``ToolAnnotations``.

    None means "not declared": :meth:`Tool.hints` then derives the hint from ``write``
    (see :class:`ToolHints`). Only a declared ``destructive=True`` marks the approval card
    as destructive.
    """

    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None


@dataclass(frozen=True)
class ToolHints:
    """A tool's behaviour hints with every default applied (what MCP clients are told).

    Rules (issue 9, "annotations"), each field as declared in :class:`ToolAnnotations` when
    it is not None, else:

    * ``read_only``: ``not write``;
    * ``destructive``: False for a read-only tool, else True (a write tool is destructive
      unless it declares ``destructive=False``, e.g. one that only adds);
    * ``idempotent``: ``read_only`` (reading twice changes nothing);
    * ``open_world``: False (Interlock's own tools work on Interlock's store; a tool that
      reaches other systems declares ``open_world=True``, as ``http_json`` tools do).

    A read-only tool is never destructive, whatever it declares.
    """

    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool


@dataclass(frozen=True)
class FieldError:
    """One failed rule in a tool's arguments.

    Attributes:
        path: JSON Pointer-like list of keys and indexes, ``[]`` for the root.
        message: English sentence.
        rule: The JSON Schema keyword that failed (``type``, ``required``, ``format``...).
    """

    path: list[str | int]
    message: str
    rule: str

    def as_dict(self) -> dict[str, Any]:
        """Return ``{"path", "message", "rule"}``."""
        return {"path": list(self.path), "message": self.message, "rule": self.rule}


@dataclass
class ToolContext:
    """What a handler may know about the call it serves.

    Attributes:
        user_id: The conversation owner's id.
        conversation_id: The conversation the call belongs to.
        tool_call_id: Interlock's id of this call (also used in the tool message).
        db: The database, for tools that keep their own records (open a session per use).
        writable: False for a read tool: writes through :attr:`store` fail with
            ``permission_denied``.
        tool_name: The tool being run (for messages).
    """

    user_id: str
    conversation_id: str
    tool_call_id: str
    db: Database
    writable: bool = True
    tool_name: str = ""

    @cached_property
    def store(self) -> ToolStore:
        """The person's data through ``ctx.store``; this call's writes form one undo step."""
        # Imported here: the store raises ToolError, so it imports this module.
        from interlock.store import ToolStore

        return ToolStore(
            self.db,
            self.user_id,
            self.tool_call_id,
            writable=self.writable,
            tool_name=self.tool_name,
        )


@dataclass
class ToolResult:
    """What a handler returns: text for the model, optional JSON data for cards and clients.

    Attributes:
        text: Text for the model (cut by the registry past ``max_result_chars``, with a note).
        data: Optional JSON data for cards and clients.
        full_text: Set by the registry when ``text`` was cut: the whole text, stored apart and
            served by ``GET /api/tool-calls/{id}/output``; None when nothing was cut.
    """

    text: str
    data: Any = None
    full_text: str | None = None


@dataclass(frozen=True)
class Confirmation:
    """How a pending call reads on its card, computed on the server by ``tool.confirmation``.

    Attributes:
        title: Card heading (``Delete a note``).
        summary: One sentence in the person's terms (``Delete note #2: “buy milk”``).
        action_label: Replaces "Approve" on the button (``Delete``).
        detail: Long content shown on demand (plain text, or Markdown for document tools).
        previous: The stored text the change replaces (for a diff); None when nothing is.
        undo: How the call can be taken back (``It can be undone afterwards.``): follows the
            summary only while the call waits or runs and once it succeeded, never on the
            card of a call that did not run (expired, rejected, cancelled, failed).
    """

    title: str
    summary: str
    action_label: str
    detail: str | None = None
    previous: str | None = None
    undo: str | None = None


DETAIL_MARK = " Detail: "
"""Starts :attr:`ToolError.detail` in a failed call's tool message (after the person's
sentence, before the hint); a model saying the error back to the person leaves it out."""


class ToolError(Exception):
    """Raised by a handler (or the registry) when a call fails.

    Args:
        code: One of :data:`TOOL_ERROR_CODES`.
        message: English sentence shown to the model and the person, in the person's terms
            ("The service behind “Weather” refused the request (it needs new credentials).
            Ask your admin.").
        hint: Optional suggestion for what to do instead.
        details: Optional JSON-able data, e.g. a list of field errors.
        detail: Optional technical detail for the admin ("GET https://… answered HTTP
            401"): kept in the tool message for the model and in the server log, never
            shown on the person's card.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        hint: str | None = None,
        details: Any = None,
        detail: str | None = None,
    ) -> None:
        super().__init__(message)
        if code not in TOOL_ERROR_CODES:
            raise ValueError(f"unknown tool error code {code!r}")
        self.code = code
        self.message = message
        self.hint = hint
        self.details = details
        self.detail = detail


Handler = Callable[..., "ToolResult | str | Awaitable[ToolResult | str]"]
ArgsCheck = Callable[[dict[str, Any]], list[FieldError]]
ResponseCheck = Callable[[dict[str, Any], str], list[FieldError]]
CallCheck = Callable[[dict[str, Any], ToolContext], "Awaitable[None] | None"]
"""``check(args, ctx)``: raises :class:`ToolError` when the call must not go ahead."""
ConfirmationFn = Callable[[dict[str, Any], ToolContext], "Confirmation | Awaitable[Confirmation]"]
"""``confirmation(args, ctx) -> Confirmation``: how the call reads on its card."""
Execution = Literal["server", "frontend"]


@dataclass
class Tool:
    """A tool declaration. Build it with :func:`interlock.tools.tool` or directly.

    Attributes:
        name: Lowercase letters, digits, ``_``, ``.``, ``-``; dotted namespace ``skill.tool``.
        title: Short human title for cards.
        description: English description for the model.
        input_schema: JSON Schema (Draft 2020-12) of the arguments; root must be an object.
        handler: ``handler(args: dict, ctx: ToolContext)``, sync or async, returning
            :class:`ToolResult` or ``str``, or raising :class:`ToolError`.
        output_schema: Optional JSON Schema of ``ToolResult.data``.
        permission: ``ASK`` (default) pauses for a decision; ``ALLOW`` runs at once.
        write: True when the tool changes data.
        annotations: Behaviour hints as declared (None: derived, see :meth:`hints`).
        timeout_s: Seconds before the call fails with ``timeout``; None uses the setting.
        card: Client card hint (``approval``, ``choice``); None picks by tool name.
        check_args: Extra cross-field checks run after schema validation (also on ``edit``).
        check_response: Checks a ``respond`` decision's message against the call's proposed
            arguments, ``check_response(args, message) -> list[FieldError]`` (``[]`` when the
            answer fits); None accepts any message.
        check: ``check(args, ctx)`` (sync, run in a worker thread, or async) for rules a schema
            cannot express; raises :class:`ToolError` to refuse the call. Runs before any
            card is shown and again right before the handler; a refusal sends an error tool
            message to the model and shows no card.
        confirmation: ``confirmation(args, ctx) -> Confirmation`` (sync or async): how an
            ``ASK`` call reads on its card; stored with the call when it is interrupted.
        execution: ``server`` (the handler runs here) or ``frontend`` (the person's browser
            runs it and posts the result to ``POST /api/tool-calls/{id}/result``; the
            handler is never called).
        modal: The card asks to be reviewed in a modal (large content, complex editing).
        approval_timeout_s: Seconds an ``ASK`` call waits for a decision before it expires;
            None uses the employee's or the server's (``INTERLOCK_APPROVAL_TIMEOUT_S``).
        require_approver: True when the conversation's owner may not approve the call: only
            one of the employee's approvers may (the owner may still reject it).
        approvals_required: Distinct people who must approve (1 to 5); any reject ends it.
        skill: The skill the tool belongs to, set by the skill loader; None for core tools.
        provider_name: Name sent to model providers (``^[a-zA-Z0-9_]{1,64}$``), set by the
            registry; also the tool's MCP name.
        availability: ``availability() -> str | None``: why the tool cannot run now, as a
            sentence (a remote MCP server that is down), or None when it can. An unavailable
            tool stays registered (a call already proposed gets the reason as its error) but
            is not offered to models, MCP clients or the slash menu. None: always available.
        tags: Labels for filtering (MCP listings: ``tags=``, ``any_tags=``, ``exclude_tags=``),
            each matching ``TAG_RE`` (lowercase, up to 40 characters). The skill loader adds
            its skill's ``tags``, so a registered tool's tags are its own and its skill's; the
            registry stores them sorted, without repeats.
    """

    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    handler: Handler
    output_schema: dict[str, Any] | None = None
    permission: Permission = Permission.ASK
    write: bool = False
    annotations: ToolAnnotations = field(default_factory=ToolAnnotations)
    timeout_s: float | None = None
    card: str | None = None
    check_args: ArgsCheck | None = None
    provider_name: str = ""
    skill: str | None = None
    check_response: ResponseCheck | None = None
    check: CallCheck | None = None
    confirmation: ConfirmationFn | None = None
    execution: Execution = "server"
    modal: bool = False
    approval_timeout_s: float | None = None
    require_approver: bool = False
    approvals_required: int = 1
    tags: tuple[str, ...] = ()
    availability: Callable[[], str | None] | None = None

    @property
    def display_name(self) -> str:
        """The tool named for a person, in texts they read (errors, hints): its title in
        quotes (``“Add a note”``), else its name. Machine fields keep :attr:`name`."""
        return f"“{self.title}”" if self.title.strip() else f"'{self.name}'"

    def unavailable_reason(self) -> str | None:
        """Return why the tool cannot run now (see ``availability``), or None when it can."""
        return self.availability() if self.availability is not None else None

    def hints(self) -> ToolHints:
        """Return the behaviour hints with defaults applied (rules in :class:`ToolHints`)."""
        declared = self.annotations
        read_only = declared.read_only if declared.read_only is not None else not self.write
        destructive = (
            False
            if read_only
            else (declared.destructive if declared.destructive is not None else True)
        )
        return ToolHints(
            read_only=read_only,
            destructive=destructive,
            idempotent=declared.idempotent if declared.idempotent is not None else read_only,
            open_world=bool(declared.open_world),
        )


def is_question(tool: Tool | None) -> bool:
    """Whether ``tool`` asks the person something: it declares ``check_response``, so its
    call is answered (``respond``) rather than approved. False for None (a tool not
    registered)."""
    return tool is not None and tool.check_response is not None
