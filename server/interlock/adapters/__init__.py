"""Runtime adapters: how a declared tool reaches the outside world.

A declarative tool spec (front matter ``tools:`` or ``tools.yaml``) names a ``kind``; this
package turns the spec into a :class:`~interlock.tools.Tool` (:mod:`.declarative`) and runs it:

* ``text_template``: :mod:`.templating` (placeholders filled from the arguments);
* ``http_json``: :mod:`.http_json` (one HTTPS request, answer mapped by :mod:`.json_mapping`),
  guarded by :mod:`.net_guard` (public addresses only).

The tool registry itself stays in :mod:`interlock.tools`.
"""
