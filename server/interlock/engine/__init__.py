"""The conversation engine: the LangGraph turn graph, runs, decisions.

The only package that imports LangGraph.
"""

from interlock.engine.decisions import DecisionIn, decide
from interlock.engine.runner import Engine

__all__ = ["DecisionIn", "Engine", "decide"]
