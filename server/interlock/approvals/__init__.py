"""Oversight of tool calls: deadlines, who may decide, and calls needing several approvals.

* ``rules``: limits of the declared rules (1 to 5 approvals, timeouts), checked at load.
* ``policy``: the rule a call gets when it is interrupted (tool, employee, settings).
* ``access``: who may decide a call: its owner or one of the employee's approvers.

The expiry sweeper lives in ``interlock.engine.expiry`` (it closes calls and resumes runs).
This module imports nothing so that ``interlock.tools`` can use ``rules`` without a cycle.
"""
