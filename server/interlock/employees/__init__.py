"""AI employees: who the person chats with, the prompt the model gets and the tool rules.

Built-ins ship in ``builtin.yaml``; admins create employees and override built-ins through the
API (stored in the ``employees`` table). :class:`EmployeeDirectory` merges the two.
"""

from interlock.approvals.rules import ToolApprovalRule
from interlock.employees.directory import EmployeeDirectory
from interlock.employees.spec import (
    ALL_SKILLS,
    DEFAULT_EMPLOYEE,
    Employee,
    EmployeeFields,
    ToolPermission,
    load_builtin,
)

__all__ = [
    "ALL_SKILLS",
    "DEFAULT_EMPLOYEE",
    "Employee",
    "EmployeeDirectory",
    "EmployeeFields",
    "ToolApprovalRule",
    "ToolPermission",
    "load_builtin",
]
