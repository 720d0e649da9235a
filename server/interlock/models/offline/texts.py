"""Fixed texts of the offline model: the help text and the long streamed answer."""

from __future__ import annotations

HELP_TEXT = (
    "Hi! I'm **interlock-offline**, the built-in offline model: no API key, no network, and I "
    "only understand a few kinds of requests. Try one of these:\n\n"
    "- “ideas for a name for my cat” (I suggest options and you pick one)\n"
    "- “add a note buy milk” or “remember to call Sam”\n"
    "- “what notes do I have?”\n"
    "- “delete note 2” or “delete note buy milk”\n"
    "- “add a note water the plants and delete note 1” (two calls at once)\n"
    "- “write a long answer” (a long streamed reply)\n"
    "- “ask me to choose between tea, coffee and juice”, “ask me for my details” or “ask me to "
    "confirm the booking” (a question card for you to answer)\n"
    '- “use notes.add with {"text": "buy milk"}” (call any tool by name with JSON '
    "arguments)\n\n"
    "Anything that changes your notes waits for your approval. To chat with a real model, set "
    "`INTERLOCK_MODEL` (for example `openai:gpt-4o-mini`)."
)

_LONG_PARAGRAPHS = (
    "Interlock lets you work with AI employees that ask before they act. Every time an "
    "employee wants to do something that changes your data, such as adding or deleting a note, "
    "the run pauses and shows you a card with the exact arguments it proposes. You can approve "
    "the call as it is, edit the arguments first, reject it with a reason, or answer in your own "
    "words. Nothing happens behind your back, and every decision is stored with the "
    "conversation so you can see later who decided what and when.",
    "This answer is deliberately long so that streaming can be watched and tested. The offline "
    "model sends it one word at a time, exactly the way a hosted model streams tokens over the "
    "network. The server turns each piece into a message delta event with its own sequence "
    "number, so a browser that reconnects in the middle of the answer can ask for everything "
    "after the last event it saw and continue without losing or repeating a single word.",
    "Because the offline model is deterministic, the same conversation always produces the same "
    "reply, the same tool calls and the same call identifiers. That makes it a dependable "
    "partner for automated tests: a test can send a message, wait for the run to pause, approve "
    "or reject the pending call, and then check the final answer word for word. When you are "
    "ready for real conversations, point Interlock at any LangChain chat model instead.",
    "Configuration is a single setting. Set the model to a provider and a model name separated "
    "by a colon, for example openai followed by a model such as gpt-4o-mini, anthropic with a "
    "Claude model, or ollama with a local model like llama3.1. An OpenAI-compatible server such "
    "as vLLM, llama.cpp or LM Studio works too: give its base URL and, if it needs one, an API "
    "key. The tools, approvals, streaming and storage stay exactly the same whichever model "
    "answers, which is the whole point of keeping the model behind one small contract.",
)

LONG_TEXT = "\n\n".join(
    f"**Part {number}.** {paragraph}" for number, paragraph in enumerate(_LONG_PARAGRAPHS, 1)
)
"""The deterministic long answer (well over 300 streamed tokens) for "write a long answer"."""
