"""MCP: Interlock as a client of remote MCP servers (tool sources) and as an MCP server.

Client side: :mod:`.names` (Interlock names for remote tools), :mod:`.client` (one session per
remote server, kept off the request path), :mod:`.results` (remote results as tool results),
:mod:`.sources` (remote tools in the registry), :mod:`.store` (servers added by admins).
"""
