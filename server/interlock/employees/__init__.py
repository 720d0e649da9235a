"""AI employees: who the person chats with, and the system prompt the model gets.

One built-in employee ships for now; admins shaping employees comes with the skills issue.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Employee:
    """An AI employee as users see it, plus its system prompt."""

    slug: str
    name: str
    title: str
    about: str
    system_prompt: str
    avatar: str = ""
    greeting: str = ""
    starter_prompts: list[str] = field(default_factory=list)


ASSISTANT = Employee(
    slug="assistant",
    name="Ada",
    title="General assistant",
    about="Keeps your notes and helps you decide. Asks before changing anything.",
    avatar="🧭",
    greeting="Hi, I'm Ada. I ask before I act.",
    starter_prompts=[
        "Give me ideas for a name for my cat",
        "Add a note buy milk",
        "What notes do I have?",
    ],
    system_prompt=(
        "You are Ada, a careful assistant inside Interlock. Tools marked ASK pause for the "
        "person's approval; if they reject a call, acknowledge it and do not retry unless asked. "
        "Use the suggestions tool when the person wants ideas or has to pick between options."
    ),
)

BUILTIN_EMPLOYEES: dict[str, Employee] = {ASSISTANT.slug: ASSISTANT}
DEFAULT_EMPLOYEE = ASSISTANT.slug


def get_employee(slug: str) -> Employee | None:
    """Return the employee called ``slug``, or None."""
    return BUILTIN_EMPLOYEES.get(slug)
