"""A remote MCP tool's result as an Interlock :class:`~interlock.tools.ToolResult`.

Text blocks become the result text (joined by blank lines); other blocks are described in a
line (``[image: image/png, 12 kB]``), since models are sent text; ``structured_content``
becomes ``data``. A result the server marks ``is_error`` is a failed call (``failed``) with
the server's own words. Cutting long text is the registry's job (``max_tool_result_chars``),
as for every tool.
"""

from __future__ import annotations

import base64
import binascii
import json

import mcp_types as types

from interlock.tools import ToolError, ToolResult

MAX_ERROR_CHARS = 2000
"""Longest remote error text passed on to the model and the person (the rest is cut)."""


def _size(data: str) -> str:
    try:
        n = len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        n = len(data)
    return f"{n / 1024:.0f} kB" if n >= 1024 else f"{n} bytes"


def block_text(block: types.ContentBlock) -> str:
    """Return one content block as text for the model."""
    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, types.ImageContent):
        return f"[image: {block.mime_type}, {_size(block.data)}]"
    if isinstance(block, types.AudioContent):
        return f"[audio: {block.mime_type}, {_size(block.data)}]"
    if isinstance(block, types.EmbeddedResource):
        resource = block.resource
        if isinstance(resource, types.TextResourceContents):
            return resource.text
        return f"[file: {resource.uri}, {resource.mime_type or 'binary'}, {_size(resource.blob)}]"
    return f"[link: {block.name} {block.uri}]"


def result_text(result: types.CallToolResult) -> str:
    """Return the text of every content block, joined by blank lines."""
    return "\n\n".join(block_text(block) for block in result.content)


def tool_result(result: types.CallToolResult, *, server: str, remote_name: str) -> ToolResult:
    """Turn a remote result into a :class:`ToolResult`.

    Args:
        result: What ``tools/call`` returned.
        server: The server's name (for messages).
        remote_name: The tool's name on the server (for messages).

    Returns:
        ``ToolResult(text, data=structured_content)``; when the server sent structured
        content only, ``text`` is its JSON.

    Raises:
        ToolError: ``failed`` when ``is_error`` is set, with the remote text (at most
            :data:`MAX_ERROR_CHARS` characters).
    """
    text = result_text(result)
    if result.is_error:
        said = text.strip() or "no details"
        if len(said) > MAX_ERROR_CHARS:
            said = said[:MAX_ERROR_CHARS] + " […]"
        raise ToolError(
            "failed",
            f"The MCP server '{server}' reported an error from its tool '{remote_name}': {said}",
        )
    if not text and result.structured_content is not None:
        text = json.dumps(result.structured_content, ensure_ascii=False)
    return ToolResult(text=text, data=result.structured_content)
