/**
 * A whole page (or a page's main area) that cannot show its content yet: loading, or a
 * problem. A problem has a heading saying what could not be done, the reason in the person's
 * words, what to do next, and a button that does it — never only a red sentence.
 */
import { useEffect, useId, useRef } from "react";
import type { ApiError } from "../api/client";

/** "Loading…" announced politely to screen readers (role="status"), as a sentence. */
export function Loading({ what = "Loading…", className = "muted" }: { what?: string; className?: string }) {
  return (
    <p className={className} role="status" aria-live="polite">
      {what}
    </p>
  );
}

type Failure = Pick<ApiError, "status" | "code" | "message">;

const unreachable = (e: Failure) => e.status === 0 || e.code === "network";

/**
 * A failed request as a problem's words: the heading (`title` unless the server could not be
 * reached at all), the reason, and what to do next.
 */
export function problemWords(error: Failure, title: string): { title: string; message: string; next: string } {
  if (unreachable(error))
    return {
      title: "Cannot reach the server",
      message: "Your browser could not connect to the Interlock server.",
      next: "Check that you are online and that the server is running, then try again.",
    };
  if (error.status === 404) return { title, message: error.message, next: "It may have been deleted. Pick another one from the list." };
  if (error.status === 403) return { title, message: error.message, next: "Ask an admin for access." };
  if (error.status >= 500)
    return { title, message: error.message, next: "Try again in a moment. If it keeps happening, tell your admin." };
  return { title, message: error.message, next: "Try again in a moment." };
}

interface ProblemProps {
  /** What could not be done: "Cannot reach the server", "This conversation could not be opened". */
  title: string;
  /** Why, in the person's words (the server's sentence). */
  message: string;
  /** What to do next (see `nextStep`). */
  next: string;
  /** The next step's button: "Try again". */
  actionLabel?: string;
  onAction?: () => void;
  /** The heading's level: 1 for a page of its own, 2 inside a page that has its own h1. */
  level?: 1 | 2;
  testId?: string;
}

/** A problem that stops a page: a heading, the reason, the next step, and its button. */
export function Problem({ title, message, next, actionLabel = "Try again", onAction, level = 1, testId }: ProblemProps) {
  const id = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  // Focus the heading when the problem appears, so a keyboard or screen reader user lands on it.
  useEffect(() => heading.current?.focus(), [title]);
  const Heading = level === 1 ? "h1" : "h2";
  return (
    <section className="page-problem pad" role="alert" aria-labelledby={id} data-testid={testId}>
      <Heading id={id} ref={heading} tabIndex={-1}>
        {title}
      </Heading>
      <p className="error">{message}</p>
      <p>{next}</p>
      {onAction && (
        <button type="button" onClick={onAction}>
          {actionLabel}
        </button>
      )}
    </section>
  );
}
