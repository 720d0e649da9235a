"""The offline model asks its card questions as sentences, in the employee's voice.

Found by trying the product: "Ask me to confirm the booking for Friday" gave a confirm card
whose question read "the booking for Friday", a fragment. What the person writes after "ask
me to confirm" (or "ask me which of ...") is now worded as the question the employee asks:
a sentence ending in a question mark, the person's "I"/"my" turned to "you"/"your".
"""

from __future__ import annotations

import pytest

from support.offline_skills import (
    ALL_ASK,
    answer_to,
    ask,
    bound_model,
    checked_calls,
    history_after,
)


@pytest.mark.parametrize(
    ("text", "question"),
    [
        ("Ask me to confirm the booking for Friday", "Do you confirm the booking for Friday?"),
        ("ask me to confirm the order of two pizzas", "Do you confirm the order of two pizzas?"),
        ("Confirm deleting all my notes.", "Do you confirm deleting all your notes?"),
        ("can you ask me to confirm that we ship today?", "Do you confirm that we ship today?"),
        ('confirm: "book the 9:15 train"', "Should I book the 9:15 train?"),
        (
            "ask me to confirm that I want the blue one",
            "Do you confirm that you want the blue one?",
        ),
        ("ask me to confirm my booking", "Do you confirm your booking?"),
        (
            "ask me to confirm you will send the report",
            "Do you confirm that I will send the report?",
        ),
        ("ask me to confirm: is Friday ok?", "Is Friday ok?"),
        (
            "ask me to confirm whether we should cancel the trip",
            "Do you confirm that we should cancel the trip?",
        ),
        ("ask me to confirm Ship it", "Should I ship it?"),
    ],
)
async def test_a_confirm_card_asks_a_whole_question(text: str, question: str) -> None:
    reply = await ask(text, *ALL_ASK)

    assert checked_calls(reply) == [("ask_confirm", {"summary": question})]
    assert question[0].isupper() and question.endswith("?")


@pytest.mark.parametrize(
    ("text", "question"),
    [
        ("ask me to choose between tea, coffee and juice", "Which one do you choose?"),
        ("ask me which of tea, coffee or juice I prefer", "Which one do you prefer?"),
        ("ask me which of tea or coffee I would like", "Which one would you like?"),
        ("ask me to pick any of tea, coffee or juice I want", "Which ones do you want?"),
    ],
)
async def test_a_choice_card_asks_with_the_persons_own_verb(text: str, question: str) -> None:
    reply = await ask(text, *ALL_ASK)

    ((name, args),) = checked_calls(reply)
    assert (name, args["question"]) == ("ask_choice", question)


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("Do you confirm the booking for Friday?", "Confirmed: the booking for Friday."),
        ("Should I book the 9:15 train?", "Confirmed: I will book the 9:15 train."),
        ("Is Friday ok?", "Confirmed: you said yes to “Is Friday ok?”."),
        ("ship it", "Confirmed: ship it."),
    ],
)
async def test_a_yes_is_said_back_without_repeating_the_question(question: str, said: str) -> None:
    history = history_after("confirm", "ask_confirm", {"summary": question}, "yes")

    reply = await answer_to(bound_model(*ALL_ASK), history)

    assert reply.text == said
