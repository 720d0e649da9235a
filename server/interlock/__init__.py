"""Interlock: chat with AI employees that ask before they act."""

__version__ = "0.1.0"
