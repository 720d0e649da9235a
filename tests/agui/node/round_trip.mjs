// The AG-UI round trip with the official client (@ag-ui/client), run by
// tests/agui/test_agui_node_client.py against a live Interlock:
// send a message, receive the interrupt, resume with an edit that does not fit the tool's
// JSON Schema (a RUN_ERROR), then with one that does, and see the run finish.
// Usage: node round_trip.mjs <endpoint url>; prints one JSON summary line on stdout.
import { HttpAgent } from "@ag-ui/client";

const [url] = process.argv.slice(2);
const threadId = url.split("/").at(-1);
const agent = new HttpAgent({ url, threadId });

async function run(params) {
  const seen = { types: [], errors: [], outcome: null, interrupts: [] };
  await agent.runAgent(params, {
    onEvent: ({ event }) => void seen.types.push(event.type),
    onRunErrorEvent: ({ event }) => void seen.errors.push({ code: event.code, message: event.message }),
    onRunFinishedEvent: (finished) => {
      seen.outcome = finished.outcome;
      seen.interrupts = finished.outcome === "interrupt" ? finished.interrupts : [];
    },
  });
  return seen;
}

agent.addMessage({ id: "user-1", role: "user", content: "add a note buy milk" });
const first = await run();
const [interrupt] = agent.pendingInterrupts;
const proposed = agent.messages.flatMap((m) => m.toolCalls ?? []).find((c) => c.id === interrupt.toolCallId);

const bad = await run({
  resume: [{ interruptId: interrupt.id, status: "resolved", payload: { type: "edit", args: { text: 5 } } }],
});
const stillPending = agent.pendingInterrupts.map((i) => i.id);

const second = await run({
  resume: [
    { interruptId: interrupt.id, status: "resolved", payload: { type: "edit", args: { text: "buy oat milk" } } },
  ],
});

console.log(
  JSON.stringify({
    first,
    interrupt,
    proposedArgs: proposed ? JSON.parse(proposed.function.arguments) : null,
    bad,
    stillPending,
    second,
    pendingAfter: agent.pendingInterrupts,
    messages: agent.messages.map((m) => ({ id: m.id, role: m.role, content: m.content, toolCallId: m.toolCallId })),
  }),
);
