/**
 * "Something changed" signals between the parts of this tab and the app's other tabs
 * (BroadcastChannel): a decision, a new waiting call, a rename. Listeners re-read what they
 * show (the conversation list, the Approvals view), so tabs stay in step without polling.
 */
export type Activity =
  | { kind: "conversation"; id: string }
  | { kind: "conversations" };

type Listener = (activity: Activity) => void;

const listeners = new Set<Listener>();
let channel: BroadcastChannel | null = null;

function getChannel(): BroadcastChannel | null {
  if (channel || typeof BroadcastChannel === "undefined") return channel;
  channel = new BroadcastChannel("interlock.activity");
  channel.onmessage = (e: MessageEvent<Activity>) => listeners.forEach((l) => l(e.data));
  return channel;
}

/** Tells this tab's listeners and the other tabs. */
export function announceActivity(activity: Activity): void {
  listeners.forEach((l) => l(activity));
  getChannel()?.postMessage(activity);
}

/** Listens to this tab's and the other tabs' activity; returns the unsubscribe function. */
export function onActivity(listener: Listener): () => void {
  getChannel();
  listeners.add(listener);
  return () => listeners.delete(listener);
}
