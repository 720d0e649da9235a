"""AG-UI: drive Interlock from an off-the-shelf AG-UI client (protocol 1.0).

``POST /api/ag-ui/{conversation_id}`` (``interlock.api.routers.agui``) takes a
``RunAgentInput`` and answers with AG-UI events over SSE. :mod:`.runs` starts the turn (or
:mod:`.resume` applies the resume) on Interlock's engine and follows its event stream;
:mod:`.translate` maps Interlock's events onto AG-UI events and stored rows onto AG-UI
messages; :mod:`.interrupts` maps waiting tool calls onto interrupts and resume entries onto
decisions; :mod:`.state` holds the reads. Event and message types come from the
``ag-ui-protocol`` package.
"""

from interlock.agui.runs import agui_events

__all__ = ["agui_events"]
