"""Test support: a live server on loopback and an SSE reader (importable as ``support``)."""
