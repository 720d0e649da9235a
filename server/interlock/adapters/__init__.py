"""Runtime adapters: how a declared tool reaches the outside world.

A declarative tool spec (front matter ``tools:`` or ``tools.yaml``) names a ``kind``; this
package turns the spec into a :class:`~interlock.tools.Tool` (:mod:`.declarative`) and runs it:

* ``text_template``: :mod:`.templating` (placeholders filled from the arguments);
* ``http_json``: :mod:`.http_json` (one HTTPS request, answer mapped by :mod:`.json_mapping`),
  guarded by :mod:`.net_guard` (public addresses only).

A LangChain tool (``BaseTool``, ``@tool``) becomes a :class:`~interlock.tools.Tool` with
:func:`from_langchain` (:mod:`.langchain_tools`). The tool registry itself stays in
:mod:`interlock.tools`.
"""

from interlock.adapters.langchain_tools import from_langchain

__all__ = ["from_langchain"]
