"""Library packages whose body runs on first use rather than at import.

Two packages, each imported only for one small submodule of a package whose own
``__init__`` imports far more:

* ``langsmith.types``: LangGraph needs ``langchain_core.runnables``, which imports its tracers,
  which import ``langsmith.run_trees``; that imports ``langsmith.types.run_select_field`` (one
  ``Literal``) and so runs ``langsmith/types/__init__.py``, which builds the ~150 pydantic models
  of the LangSmith REST API (Stainless-generated: datasets, sandboxes, charts, annotation
  queues...). That is about 160 modules and 315,000 Python calls, an eighth of every start of
  the server (issue 7, benchmark f), for models no run uses: tracing a run
  (``LANGSMITH_TRACING``) sends ``langsmith.schemas`` and ``run_trees`` objects, which are
  imported as before. ``langsmith/__init__.py`` itself keeps ``types`` lazy "so that ``import
  langsmith`` stays cheap"; only this one submodule import (langsmith 0.15.1) undoes it.
* ``langgraph_sdk``: ``langgraph.runtime`` imports ``langgraph_sdk.auth.types`` (``BaseUser``,
  a ``Protocol``), and so runs ``langgraph_sdk/__init__.py``, which imports the LangGraph
  Platform's HTTP and WebSocket client (``langgraph_sdk.client``: httpx with its command-line
  extras click, rich and pygments, and websockets): about 170 modules and 170,000 Python calls
  of every start (issue 7, benchmark f), for a client Interlock never uses (it runs graphs in
  process; only ``langgraph.pregel.remote``, which Interlock does not import, uses the client).

:func:`defer_package_bodies` makes each package's own body wait for its first use: importing
any of its submodules works as usual (their own code runs), and the first attribute the
package does not have yet (``langsmith.types.Run``, ``from langgraph_sdk import get_client``,
``dir()``) runs the package's ``__init__`` in full, once, under a lock, then answers as it
would have. Nothing in site-packages is changed, and nothing is switched off: a process that
imported one of them before Interlock keeps it as it is.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import threading
from collections.abc import Sequence
from types import ModuleType
from typing import Any

__all__ = ["DEFERRED_PACKAGES", "defer_package_bodies"]

DEFERRED_PACKAGES = ("langsmith.types", "langgraph_sdk")
"""The packages whose ``__init__`` runs on first use (see the module's docstring)."""


def defer_package_bodies() -> None:
    """Run each of :data:`DEFERRED_PACKAGES`' package body on first use, not when imported.

    Skips a package imported already; does nothing when the finder is in place already.
    Called by ``interlock/__init__.py``, so before any Interlock module imports LangChain.
    """
    if any(isinstance(finder, _FirstUseFinder) for finder in sys.meta_path):
        return
    names = frozenset(name for name in DEFERRED_PACKAGES if name not in sys.modules)
    if names:
        sys.meta_path.insert(0, _FirstUseFinder(names))


class _FirstUseFinder(importlib.abc.MetaPathFinder):
    """Finds the named packages as the path finder does, with a loader that defers each body.

    It stays in ``sys.meta_path`` (one set look-up per module imported): taking it out while
    another thread walks the list could make that thread skip a finder.
    """

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.names:
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
