"""Interlock and the Model Context Protocol (MCP).

* ``serve``: Interlock as an MCP server at ``/mcp`` (Streamable HTTP), behind the same
  approval gate as chat; ``gate``: what a ``tools/call`` goes through and waits for.
"""
