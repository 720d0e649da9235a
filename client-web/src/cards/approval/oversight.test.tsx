import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { noteServerDate, resetServerClock, serverNow } from "../../state/serverClock";
import { toolCall } from "../../test/fixtures";
import { ApprovalProgress } from "./ApprovalProgress";
import { ExpiryCountdown, formatTimeLeft } from "./ExpiryCountdown";

const NOW = Date.parse("2030-06-01T12:00:00Z");

function countdown(expiresAt: string): string {
  return renderToStaticMarkup(<ExpiryCountdown expiresAt={expiresAt} />);
}

describe("ExpiryCountdown", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(NOW);
    resetServerClock();
  });
  afterEach(() => {
    vi.useRealTimers();
    resetServerClock();
  });

  it("shows the time left while there is time", () => {
    const html = countdown("2030-06-01T12:01:05Z");
    expect(html).toContain('data-state="ok"');
    expect(html).toContain("Decide within 1 min 05 s");
  });

  it("warns in the last minute, announced as an alert", () => {
    const html = countdown("2030-06-01T12:00:59Z");
    expect(html).toContain('data-state="warn"');
    expect(html).toContain('role="alert">Less than a minute left to decide.');
    expect(html).toContain("59 s left");
  });

  it("says time is up once the deadline passed", () => {
    const html = countdown("2030-06-01T11:59:59Z");
    expect(html).toContain('data-state="over"');
    expect(html).toContain("not decided in time and will not run");
  });

  it("reads the deadline against the server's clock, not a skewed browser clock", () => {
    // The browser is 10 minutes behind the server.
    noteServerDate(new Date(NOW + 10 * 60_000).toUTCString(), NOW);
    expect(Math.round((serverNow() - NOW) / 1000)).toBeGreaterThanOrEqual(600);
    expect(countdown("2030-06-01T12:10:30Z")).toContain('data-state="warn"');
    // Within the header's one-second resolution nothing is corrected.
    noteServerDate(new Date(NOW).toUTCString(), NOW + 400);
    expect(serverNow()).toBe(NOW);
  });

  it("formats durations for people", () => {
    expect(formatTimeLeft(42.9)).toBe("42 s");
    expect(formatTimeLeft(250)).toBe("4 min 10 s");
    expect(formatTimeLeft(86_399)).toBe("23 h 59 min");
    expect(formatTimeLeft(5 * 86_400)).toBe("5 days 0 h");
  });
});

describe("ApprovalProgress", () => {
  it("says how many approvals are in and who gave them", () => {
    const call = toolCall({
      status: "interrupted",
      approvals_required: 2,
      approvals: [{ user_id: "user_ana", user_name: "Ana", created_at: "2030-06-01T12:00:00Z" }],
    });
    const html = renderToStaticMarkup(<ApprovalProgress call={call} owned={false} />);
    expect(html).toContain("1 of 2 approvals");
    expect(html).toContain(": Ana");
    expect(html).toContain("Needs 1 more from different people");
    expect(html).toContain("can&#x27;t be edited");
  });

  it("tells the owner they can only reject a call needing an approver", () => {
    const call = toolCall({ status: "interrupted", require_approver: true });
    expect(renderToStaticMarkup(<ApprovalProgress call={call} owned />)).toContain("can&#x27;t approve your own call");
  });

  it("shows nothing for a call one person decides", () => {
    expect(renderToStaticMarkup(<ApprovalProgress call={toolCall({ status: "interrupted" })} owned />)).toBe("");
  });
});

describe("ApprovalCard for a call needing several approvals", () => {
  it("offers Approve and Reject but no Edit", async () => {
    const { ApprovalCard } = await import("./ApprovalCard");
    const call = toolCall({ status: "interrupted", approvals_required: 2, approvals: [] });
    const html = renderToStaticMarkup(
      <ApprovalCard call={call} tool={undefined} title="Add a note" live busy={false} decide={async () => null} />,
    );
    expect(html).toContain('data-testid="approve"');
    expect(html).toContain('data-testid="reject"');
    expect(html).not.toContain('data-testid="edit"');
  });
});

describe("ApprovalCard for a call needing an approver", () => {
  it("offers only Reject to the owner", async () => {
    const { ApprovalCard } = await import("./ApprovalCard");
    const call = toolCall({ status: "interrupted", require_approver: true });
    const html = renderToStaticMarkup(
      <ApprovalCard call={call} tool={undefined} title="Add a note" live busy={false} decide={async () => null} canApprove={false} />,
    );
    expect(html).toContain('data-testid="reject"');
    expect(html).not.toContain('data-testid="approve"');
    expect(html).not.toContain('data-testid="edit"');
  });
});
