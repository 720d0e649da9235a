"""Interlock and MCP: the pure layer between the tool registry and the Model Context Protocol.

Modules (import them directly; this package imports nothing, so importing it is cheap):

* :mod:`~interlock.mcp_bridge.exposition` - one employee's visible tools as MCP tool
  definitions, ``flat`` (one MCP tool per tool) or ``grouped`` (one per namespace, with an
  ``action`` field), listed page by page, and an MCP call mapped back to the Interlock tool
  and arguments it names;
* :mod:`~interlock.mcp_bridge.options` - the per-connection listing options (exposition, tag
  filters, read-only switch) parsed from query parameters;
* :mod:`~interlock.mcp_bridge.grouping` - the merged input schema of a ``grouped`` tool;
* :mod:`~interlock.mcp_bridge.paging` - opaque, stable list cursors.

Nothing here does I/O or checks permissions: the caller passes the tools a connection may see
(DENY removed) and runs every call through the normal validation, permission and approval gate.
"""
