import { registerTool, reveal, type CardProps } from "../cards";

/** What became of the alert: an approval alone does not send it (the tool may still fail). */
function outcome(status: string): string {
  if (status === "succeeded") return "Sent";
  if (["failed", "rejected", "cancelled", "expired"].includes(status)) return "Not sent";
  return "Sending…";
}

/** A card of its own for the `weather.alert` tool (see "Add a tool in five minutes"). */
function WeatherAlertCard({ call, live, busy, decide }: CardProps) {
  // What ran (an edited call runs the edited args), else what the model proposed.
  const args = call.executed_args ?? call.proposed_args;
  const city = reveal(String(args?.city ?? "?")); // an RTL override reads [U+202E]
  const level = Number(args?.level ?? 0);
  return (
    <section className="card" aria-label={`Weather alert for ${city}`}>
      <h4 data-testid="weather-summary">
        Send a level {level} of 5 alert for {city}
      </h4>
      <meter min={0} max={5} value={level} aria-label="Alert level" />
      {live && (
        <div className="actions">
          <button type="button" className="primary" disabled={busy} onClick={() => void decide({ type: "approve" })}>
            Send alert
          </button>
          <button type="button" disabled={busy} onClick={() => void decide({ type: "reject" })}>
            Don't send
          </button>
        </div>
      )}
      {call.decision && <p data-testid="decision">{outcome(call.status)}</p>}
    </section>
  );
}

registerTool("weather.alert", { card: WeatherAlertCard });

/** A tool run by the browser (declared `execution="frontend"` on the server). */
registerTool("weather.units", {
  invoke: () => {
    const locale = Intl.NumberFormat().resolvedOptions().locale;
    const imperial = ["en-US", "en-LR", "my-MM"].includes(locale);
    const units = imperial ? "imperial" : "metric";
    return { text: `The person uses ${units} units.`, data: { units } };
  },
});
