"""Who may let an AI employee act: permission levels, the "AI actions" switch, and grants.

See :mod:`interlock.permissions.levels` (``ALLOW`` / ``ASK`` / ``DENY``),
:mod:`interlock.permissions.switch` (the per person and employee switch) and
:mod:`interlock.permissions.grants` ("don't ask again").
"""

from interlock.permissions.grants import (
    MAX_GRANT_DAYS,
    create_grant,
    find_grant,
    grant_state,
    live_grants,
    revoke_grant,
    use_grant,
)
from interlock.permissions.levels import effective_permission, is_action
from interlock.permissions.switch import (
    SwitchState,
    actions_on,
    read_switch_of,
    set_switch,
    start_switch,
    switch_state,
)

__all__ = [
    "MAX_GRANT_DAYS",
    "SwitchState",
    "actions_on",
    "create_grant",
    "effective_permission",
    "find_grant",
    "grant_state",
    "is_action",
    "live_grants",
    "read_switch_of",
    "revoke_grant",
    "set_switch",
    "start_switch",
    "switch_state",
    "use_grant",
]
