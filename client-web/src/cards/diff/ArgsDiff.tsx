/** Renders what an edit changed (argsChanges) and line diffs of long text; all as text. */
import type { JsonObject } from "../../api/types";
import { reveal } from "../reveal";
import { argsChanges, diffStats, foldUnchanged, lineDiff, type DiffLine } from "./argsDiff";

export function ArgsDiff({ schema, proposed, executed }: { schema: unknown; proposed: JsonObject | null; executed: JsonObject | null }) {
  const changes = argsChanges(schema, proposed, executed);
  if (changes.length === 0) return <p className="muted small">Approved as proposed (no field changed).</p>;
  return (
    <dl className="args-diff" data-testid="args-diff" aria-label="Changes: proposed → executed">
      {changes.map((c) => (
        <div key={c.key} className="diff-field" data-testid="diff-field" data-key={c.key} data-kind={c.kind}>
          <dt>{c.label}</dt>
          <dd>
            {c.lines ? (
              <LineDiffView lines={c.lines} />
            ) : (
              <span className="diff-inline">
                {c.kind !== "added" && (
                  <del className="diff-removed" data-testid="diff-before">
                    {c.before || "—"}
                  </del>
                )}
                {c.kind === "changed" && <span aria-hidden="true"> → </span>}
                {c.kind !== "removed" && (
                  <ins className="diff-added" data-testid="diff-after">
                    {c.after || "—"}
                  </ins>
                )}
              </span>
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** A line diff of two texts; when too different to compare, both sides in full. */
export function TextDiff({ before, after }: { before: string; after: string }) {
  if (before === after) return <p className="muted small" data-testid="text-diff-none">No changes.</p>;
  const lines = lineDiff(before, after);
  if (!lines) {
    return (
      <div className="text-diff-sides" data-testid="text-diff">
        <p className="muted small">The texts are too different to compare line by line.</p>
        <pre className="line-diff">{reveal(before)}</pre>
        <pre className="line-diff">{reveal(after)}</pre>
      </div>
    );
  }
  return <LineDiffView lines={lines} />;
}

const MARK = { same: " ", added: "+", removed: "−" } as const;
const WORD = { same: "unchanged", added: "added", removed: "removed" } as const;

export function LineDiffView({ lines }: { lines: DiffLine[] }) {
  const stats = diffStats(lines);
  return (
    <div className="line-diff-wrap" data-testid="text-diff">
      <p className="muted small diff-stats">
        {stats.added} line{stats.added === 1 ? "" : "s"} added, {stats.removed} removed
      </p>
      <pre className="line-diff" tabIndex={0}>
        {foldUnchanged(lines).map((h, i) =>
          h.kind === "gap" ? (
            <span key={i} className="diff-gap">
              {`⋯ ${h.count} unchanged line${h.count === 1 ? "" : "s"}\n`}
            </span>
          ) : (
            h.lines.map((l, j) => (
              <span key={`${i}:${j}`} className={`diff-line diff-${l.kind}`} data-kind={l.kind}>
                <span className="visually-hidden">{WORD[l.kind]}: </span>
                <span aria-hidden="true">{MARK[l.kind]} </span>
                {`${l.text}\n`}
              </span>
            ))
          ),
        )}
      </pre>
    </div>
  );
}
