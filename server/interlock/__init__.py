"""Interlock: chat with AI employees that ask before they act."""

from interlock.deferred_imports import defer_package_bodies

__version__ = "0.1.0"

# Before any Interlock module imports LangChain: LangSmith's ~150 REST API models and the
# LangGraph Platform client are built on their first use, not at every start (see
# interlock.deferred_imports).
defer_package_bodies()
