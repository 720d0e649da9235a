"""Library packages whose body runs on first use rather than at import: ``langsmith.types``.

LangGraph needs ``langchain_core.runnables``, which imports its tracers, which import
``langsmith.run_trees``; that imports ``langsmith.types.run_select_field`` (one ``Literal``)
and so runs ``langsmith/types/__init__.py``, which builds the ~150 pydantic models of the
LangSmith REST API (Stainless-generated: datasets, sandboxes, charts, annotation queues...).
That is about 160 modules and 315,000 Python calls, an eighth of every start of the server
(issue 7, benchmark f), for models no run uses: tracing a run (``LANGSMITH_TRACING``) sends
``langsmith.schemas`` and ``run_trees`` objects, which are imported as before.
``langsmith/__init__.py`` itself keeps ``types`` lazy "so that ``import langsmith`` stays
cheap"; only this one submodule import (langsmith 0.15.1) undoes it.

:func:`defer_langsmith_types` makes the package's own body wait for its first use: importing
any of its submodules works as usual (their own code runs), and the first attribute the
package does not have yet (``langsmith.types.Run``, ``from langsmith.types import Dataset``,
``dir()``) runs the package's ``__init__`` in full, once, under a lock, then answers as it
would have. Nothing in site-packages is changed, and nothing is switched off: a process that
imported ``langsmith.types`` before Interlock keeps it as it is.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import threading
from collections.abc import Sequence
from types import ModuleType
from typing import Any

__all__ = ["defer_langsmith_types"]

LANGSMITH_TYPES = "langsmith.types"


def defer_langsmith_types() -> None:
    """Run ``langsmith.types``'s package body on first use, not when it is imported.

    Does nothing when the package is imported already, or the finder is in place already.
    Called by ``interlock/__init__.py``, so before any Interlock module imports LangChain.
    """
    if LANGSMITH_TYPES in sys.modules:
        return
    if any(isinstance(finder, _FirstUseFinder) for finder in sys.meta_path):
        return
    sys.meta_path.insert(0, _FirstUseFinder(LANGSMITH_TYPES))


class _FirstUseFinder(importlib.abc.MetaPathFinder):
    """Finds one package as the path finder does, with a loader that defers its body.

    It stays in ``sys.meta_path`` (one string comparison per module imported): taking it out
    while another thread walks the list could make that thread skip a finder.
    """

    def __init__(self, name: str) -> None:
        self.name = name

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.loader is None or spec.submodule_search_locations is None:
            return spec  # not a package on the path: import it as usual
        spec.loader = _FirstUseLoader(spec.loader)
        return spec


class _FirstUseLoader(importlib.abc.Loader):
    """Creates the package module (with its ``__path__``) and runs its body on first use."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self.loader = loader

    def __getattr__(self, name: str) -> Any:
        # The rest of the path loader (get_source for tracebacks, get_resource_reader...).
        if name == "loader":  # not set yet (a copy): no endless recursion
            raise AttributeError(name)
        return getattr(self.loader, name)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        lock = threading.RLock()
        ran = False

        def run_body() -> None:
            nonlocal ran
            with lock:  # other threads wait for the body; this thread's re-entry passes
                if not ran:
                    ran = True
                    try:
                        self.loader.exec_module(module)
                    except BaseException:
                        ran = False
                        raise

        def first_use(name: str) -> object:
            # Called only for a name the module does not have (PEP 562).
            run_body()
            try:
                return module.__dict__[name]
            except KeyError:
                raise AttributeError(
                    f"module {module.__name__!r} has no attribute {name!r}"
                ) from None

        def listing() -> list[str]:
            run_body()
            return sorted(module.__dict__)

        module.__dict__["__getattr__"] = first_use
        module.__dict__["__dir__"] = listing
