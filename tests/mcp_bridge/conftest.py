"""Fixtures for the remote MCP source tests (see :mod:`support.mcp_fixtures`)."""

from support.mcp_fixtures import ctx, make_sources, remote

__all__ = ["ctx", "make_sources", "remote"]
