/**
 * Tool metrics per tool and employee (GET /api/metrics/tools) over the page's time range: a
 * table whose outcome column is a small stacked bar (approved, edited, picked, rejected, answered,
 * expired, cancelled, finished after it was stopped or timed out, ran without asking), plus
 * the calls as a bar scaled to the busiest tool.
 */
import type { ToolMetrics, ToolMetricsReport } from "../api/types";
import { useAppData } from "../state/appData";
import { duration } from "./words";
import { Loading } from "../components/PageStates";

const SEGMENTS: { key: keyof ToolMetrics; label: string; className: string }[] = [
  { key: "approved", label: "Approved", className: "seg-approved" },
  { key: "edited", label: "Edited", className: "seg-edited" },
  { key: "picked", label: "Picked an option", className: "seg-picked" },
  { key: "rejected", label: "Rejected", className: "seg-rejected" },
  { key: "responded", label: "Answered", className: "seg-responded" },
  { key: "expired", label: "Expired", className: "seg-expired" },
  { key: "cancelled", label: "Cancelled", className: "seg-cancelled" },
  { key: "finished_late", label: "Finished after it was stopped or timed out", className: "seg-finished-late" },
  { key: "auto_allowed_by_grant", label: "Remembered approval", className: "seg-grant" },
  { key: "auto_allowed", label: "Allowed by permission", className: "seg-allowed" },
];

function count(row: ToolMetrics, key: keyof ToolMetrics): number {
  const value = row[key];
  return typeof value === "number" ? value : 0;
}

export function MetricsPanel({ report, error }: { report: ToolMetricsReport | null; error: string | null }) {
  const { employees } = useAppData();
  if (error) return <p className="error" role="alert">{error}</p>;
  if (!report) return <Loading what="Loading figures…" />;
  if (report.tools.length === 0) return <p className="muted" data-testid="metrics-empty">No tool calls in this time range.</p>;
  const busiest = Math.max(1, ...report.tools.map((row) => row.calls));
  return (
    <div className="table-wrap">
      <ul className="legend" aria-label="Bar colours">
        {SEGMENTS.map((seg) => (
          <li key={seg.key}>
            <span className={`swatch ${seg.className}`} aria-hidden="true" /> {seg.label}
          </li>
        ))}
      </ul>
      <table className="data-table" data-testid="metrics-table">
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col">Employee</th>
            <th scope="col">Calls</th>
            <th scope="col">Outcomes</th>
            <th scope="col">Median wait</th>
            <th scope="col">95% within</th>
          </tr>
        </thead>
        <tbody>
          {report.tools.map((row) => {
            const total = SEGMENTS.reduce((sum, seg) => sum + count(row, seg.key), 0);
            const words = SEGMENTS.filter((seg) => count(row, seg.key) > 0)
              .map((seg) => `${seg.label}: ${count(row, seg.key)}`)
              .join(", ");
            return (
              <tr key={`${row.tool}/${row.employee}`} data-testid="metrics-row" data-tool={row.tool}>
                <td>{row.title}</td>
                <td>{employees[row.employee]?.name ?? row.employee}</td>
                <td>
                  <div className="bar-cell">
                    <span className="bar calls" style={{ width: `${(row.calls / busiest) * 100}%` }} aria-hidden="true" />
                    <span className="bar-number">{row.calls}</span>
                  </div>
                </td>
                <td>
                  {total === 0 ? (
                    <span className="muted small">{row.calls === 1 ? "Not decided yet" : "None decided yet"}</span>
                  ) : (
                    <div className="outcome-bar" role="img" aria-label={words} title={words}>
                      {SEGMENTS.map((seg) =>
                        count(row, seg.key) > 0 ? (
                          <span key={seg.key} className={`seg ${seg.className}`} style={{ flexGrow: count(row, seg.key) }} />
                        ) : null,
                      )}
                    </div>
                  )}
                </td>
                <td>{duration(row.median_decision_ms)}</td>
                <td>{duration(row.p95_decision_ms)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
