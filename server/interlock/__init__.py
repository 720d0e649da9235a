"""Interlock: chat with AI employees that ask before they act."""

from interlock.deferred_imports import defer_langsmith_types

__version__ = "0.1.0"

# Before any Interlock module imports LangChain: LangSmith's ~150 REST API models are built on
# their first use, not at every start (see interlock.deferred_imports).
defer_langsmith_types()
