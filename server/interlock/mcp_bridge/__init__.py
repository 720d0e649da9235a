"""Interlock and the Model Context Protocol (MCP).

Server side:

* ``serve``: Interlock as an MCP server at ``/mcp`` (Streamable HTTP), behind the same
  approval gate as chat; ``gate``: what a ``tools/call`` goes through and waits for.

The listing layer is pure (no I/O, no permission checks: the caller passes the tools a
connection may see, DENY removed, and runs every call through the normal gate):

* ``exposition``: one employee's visible tools as MCP tool definitions, ``flat`` (one MCP tool
  per tool) or ``grouped`` (one per namespace, with an ``action`` field), listed page by page,
  and an MCP call mapped back to the Interlock tool and arguments it names;
* ``options``: the per-connection listing options (exposition, tag filters, read-only switch)
  parsed from query parameters;
* ``grouping``: the merged input schema of a ``grouped`` tool;
* ``paging``: opaque, stable list cursors.

Client side (remote MCP servers as tool sources):

* ``names``: Interlock names for remote tools (provider-safe, unique; case C19);
* ``client``: one session per remote server, owned by a background task (off the request path);
* ``results``: remote results as tool results; ``sources``: remote tools in the registry;
* ``store``: servers added through the admin API.

This package's ``__init__`` imports nothing, so importing it is cheap.
"""
