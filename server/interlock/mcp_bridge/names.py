"""Interlock names for a remote MCP server's tools (case C19).

A remote server may name its tools anything (``a.b/c``, ``get user``, 80 characters, names that
differ only in case). Interlock names each one ``mcp.<server>.<tool>`` where ``<tool>`` keeps
only ``[a-z0-9_-]``, so the name passes :data:`interlock.tools.registration.TOOL_NAME_RE` and
its provider name (:func:`interlock.tools.provider_safe_name`: ``[a-zA-Z0-9_]``, at most 64
characters) is unique among the server's tools. Calls still go out under the remote name.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable

from interlock.tools import provider_safe_name

MAX_TOOL_PART = 60
"""Longest ``<tool>`` part: the Interlock name stays short (provider names hash long ones)."""
_HASH = 8
_UNSAFE = re.compile(r"[^a-z0-9_-]+")


def tool_prefix(server: str) -> str:
    """Return ``mcp.<server>.``, the prefix of every tool of ``server``."""
    return f"mcp.{server}."


def _digest(remote: str, chars: int) -> str:
    return hashlib.sha256(remote.encode("utf-8", "surrogatepass")).hexdigest()[:chars]


def _clean(remote: str) -> str:
    """Lowercase; each run of characters outside ``[a-z0-9_-]`` becomes one ``_``."""
    cleaned = _UNSAFE.sub("_", remote.lower()).strip("_")
    return cleaned or "tool"


def _with_hash(cleaned: str, remote: str, chars: int) -> str:
    return f"{cleaned[: MAX_TOOL_PART - chars - 1]}-{_digest(remote, chars)}"


def interlock_names(server: str, remote_names: Iterable[str]) -> dict[str, str]:
    """Map each remote tool name to a unique Interlock tool name.

    Rules: a remote name that is already clean (``[a-z0-9_-]``, at most 60 characters) keeps
    its spelling; any other gets its cleaned form, and, when that is taken by another tool of
    the server or is longer than 60 characters, a ``-`` and the first 8 hex digits of the
    SHA-256 of the remote name (so the result is the same on every listing). Uniqueness is
    checked on the provider names too, which is what model providers see (dashes become
    ``_`` there: of ``get_user`` and ``get-user`` the second gets the hash).

    Args:
        server: The server's name (``MCP_SERVER_NAME_RE``).
        remote_names: The names the server lists; duplicates are ignored.

    Returns:
        Remote name -> ``mcp.<server>.<tool>``.
    """
    prefix = tool_prefix(server)
    names = sorted(set(remote_names))
    cleaned = {remote: _clean(remote) for remote in names}
    counts: dict[str, int] = {}
    for value in cleaned.values():
        counts[value] = counts.get(value, 0) + 1
    out: dict[str, str] = {}
    taken: set[str] = set()
    # Clean names first, so that they keep their spelling whatever else the server lists; of
    # those, names without a dash first (``get_user`` before ``get-user``: both become
    # ``get_user`` for providers, and the one already in that form keeps it).
    for remote in sorted(names, key=lambda r: (cleaned[r] != r, "-" in r, r)):
        base = cleaned[remote]
        keep = base == remote or counts[base] == 1
        candidate = base if keep and len(base) <= MAX_TOOL_PART else _with_hash(base, remote, _HASH)
        for chars in range(_HASH + 4, 33, 4):  # a longer hash on a (rare) clash
            if provider_safe_name(prefix + candidate) not in taken:
                break
            candidate = _with_hash(base, remote, chars)
        taken.add(provider_safe_name(prefix + candidate))
        out[remote] = prefix + candidate
    return out


_HIDDEN = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})
"""Unicode categories a remote text may not carry onto a page as they are: controls, format
characters (RTL overrides such as U+202E, zero-width spaces), private use, unassigned."""


def visible(text: str, max_chars: int = 200) -> str:
    """Return a remote server's text (a tool name, a title, an error) safe to show a person:
    every control, format or unassigned character written as ``[U+202E]``, at most
    ``max_chars`` characters (cut with ``…``).

    So ``"delete\u202efdp.txt"`` reads ``delete[U+202E]fdp.txt``, not ``deletetxt.pdf``.
    """
    out = "".join(f"[U+{ord(c):04X}]" if unicodedata.category(c) in _HIDDEN else c for c in text)
    return out if len(out) <= max_chars else out[: max_chars - 1] + "…"
