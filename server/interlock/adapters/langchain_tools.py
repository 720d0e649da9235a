"""LangChain tools as Interlock tools: a thin adapter around ``BaseTool`` (and ``@tool``).

:func:`from_langchain` takes a LangChain tool's name, description and argument schema (its
``tool_call_schema``: what the model fills, injected arguments left out) and runs it with
``ainvoke`` on a tool call, so sync tools run in LangChain's worker threads, async ones on the
event loop, and tools with ``response_format="content_and_artifact"`` give their artifact.
Everything else is Interlock's: the schema is checked by the same rules as any tool's at
registration, arguments are validated before a card is shown, the permission defaults to
``ASK``, and ``write`` must be stated, since nothing in a LangChain tool says whether it changes
data. ``ToolRegistry.register(lc_tool, write=...)`` calls this function; in a skill's
``tools.py``, bind ``from_langchain(...)``'s result at module level.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, ToolException
from pydantic import BaseModel, ValidationError
from pydantic_core import to_jsonable_python

from interlock.errors import plain_message
from interlock.tools.base import (
    Permission,
    Tool,
    ToolAnnotations,
    ToolContext,
    ToolError,
    ToolResult,
)
from interlock.tools.registration import ToolRegistrationError
from interlock.tools.schema import SchemaRuleError, model_schema

WRITE_NOT_STATED = (
    "a LangChain tool does not say whether it changes data: state it with write=True "
    "(it changes data) or write=False (it only reads)"
)
"""The reason given when ``write`` is missing (LangChain tools carry no such flag)."""


class LangChainHandler:
    """The handler of an adapted tool: ``await handler(args, ctx)`` runs the LangChain tool.

    Attributes:
        source: The LangChain tool.
    """

    def __init__(self, source: BaseTool) -> None:
        self.source = source

    async def __call__(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Invoke the tool on a tool call carrying Interlock's call id.

        Returns:
            The tool's content as text (text blocks joined) and its artifact, when JSON-able,
            as ``data``.

        Raises:
            ToolError: ``failed`` with the tool's own text when it raises ``ToolException``
                (or returns an error tool message, with ``handle_tool_error`` set);
                ``invalid_args`` with pydantic's messages when LangChain's own validation of
                the arguments fails. Other exceptions are left to the registry (``failed``).
        """
        call = {"type": "tool_call", "name": self.source.name, "args": args, "id": ctx.tool_call_id}
        config: dict[str, Any] = {
            "run_name": self.source.name,
            "metadata": {
                "interlock_conversation_id": ctx.conversation_id,
                "interlock_tool_call_id": ctx.tool_call_id,
                "interlock_user_id": ctx.user_id,
            },
        }
        try:
            out = await self.source.ainvoke(call, config=config)  # type: ignore[arg-type]
        except ToolException as exc:
            raise ToolError("failed", str(exc) or type(exc).__name__) from None
        except ValidationError as exc:
            details = "; ".join(
                f"{'/'.join(map(str, e['loc'])) or '(root)'}: {plain_message(e['msg'])}"
                for e in exc.errors(include_url=False)
            )
            raise ToolError("invalid_args", f"The tool refused its arguments: {details}") from None
        if isinstance(out, ToolMessage):
            if out.status == "error":
                raise ToolError("failed", out.text or "The tool reported an error.")
            return ToolResult(text=out.text, data=_json_or_none(out.artifact))
        return ToolResult(text=out if isinstance(out, str) else _as_text(out))


def from_langchain(
    source: BaseTool,
    *,
    write: bool | None = None,
    name: str | None = None,
    title: str | None = None,
    permission: Permission = Permission.ASK,
    annotations: ToolAnnotations | None = None,
    timeout_s: float | None = None,
    card: str | None = None,
    tags: tuple[str, ...] = (),
) -> Tool:
    """Adapt a LangChain ``BaseTool`` (a ``@tool`` function, ``StructuredTool``, a subclass).

    Args:
        source: The LangChain tool.
        write: Required: True when the tool changes data, False when it only reads.
        name: Interlock's name for it; the LangChain name when None (a skill's tools must be
            named ``<skill>.<tool>``, so pass ``name="weather.forecast"`` there).
        title: Card title; the name made readable (``get_weather`` -> ``Get weather``) when None.
        permission: ``ASK`` (default), ``ALLOW`` or ``DENY``.
        annotations: Behaviour hints; ``read_only`` follows ``write`` when None.
        timeout_s: Seconds before the call fails with ``timeout``; None uses the registry's.
        card: Client card hint.
        tags: Labels for filtering.

    Returns:
        A :class:`~interlock.tools.Tool` (not registered yet) whose handler is a
        :class:`LangChainHandler`. The tool's ``return_direct`` is not used: results always go
        back to the model.

    Raises:
        ToolRegistrationError: ``source`` is not a LangChain tool, ``write`` is not stated as
            True or False, or its argument schema cannot be derived (a recursive model).
    """
    if not isinstance(source, BaseTool):
        raise ToolRegistrationError(
            f"expected a LangChain BaseTool, got {type(source).__name__}", tool_name=name
        )
    tool_name = name if name is not None else source.name
    if not isinstance(write, bool):
        raise ToolRegistrationError(WRITE_NOT_STATED, tool_name=tool_name)
    if annotations is None:
        annotations = ToolAnnotations(read_only=not write)
    return Tool(
        name=tool_name,
        title=title if title is not None else _readable(source.name),
        description=source.description,
        input_schema=_schema_of(source, tool_name),
        handler=LangChainHandler(source),
        permission=permission,
        write=write,
        annotations=annotations,
        timeout_s=timeout_s,
        card=card,
        tags=tuple(tags),
    )


def langchain_source(tool: Tool) -> BaseTool | None:
    """Return the LangChain tool an adapted tool runs, or None for any other tool."""
    handler = tool.handler
    return handler.source if isinstance(handler, LangChainHandler) else None


def _schema_of(source: BaseTool, tool_name: str) -> dict[str, Any]:
    """The JSON Schema of what the model fills (``tool_call_schema``), ``$ref`` s inlined."""
    raw = source.tool_call_schema
    if isinstance(raw, dict):
        schema = copy.deepcopy(raw)
    elif isinstance(raw, type) and issubclass(raw, BaseModel):
        try:
            schema = model_schema(raw)
        except SchemaRuleError as exc:
            raise ToolRegistrationError(f"args schema {exc}", tool_name=tool_name) from None
    else:
        raise ToolRegistrationError(
            f"args schema must be a pydantic model or a JSON Schema, got {type(raw).__name__}",
            tool_name=tool_name,
        )
    # The root's title and description repeat the tool's name and description.
    schema.pop("title", None)
    schema.pop("description", None)
    return schema


def _readable(name: str) -> str:
    words = re.sub(r"[_\-.]+", " ", name).strip()
    return words[:1].upper() + words[1:] if words else name


def _json_or_none(value: Any) -> Any:
    """``value`` as JSON data, or None when it has no JSON form (it is not kept then)."""
    if value is None:
        return None
    try:
        data = to_jsonable_python(value)
        json.dumps(data, allow_nan=False)
    except (TypeError, ValueError):
        return None
    return data


def _as_text(value: Any) -> str:
    data = _json_or_none(value)
    return json.dumps(data, ensure_ascii=False) if data is not None else str(value)
