/**
 * The head of a tool's card. With a confirmation (from the server) its summary is the
 * heading sentence (the tool's title is on the row above the card, with its status); without
 * one, the title.
 * The tool's description is written for the model, so it only shows when nothing better is
 * known.
 */
import type { ToolCallOut, ToolOut } from "../api/types";
import { reveal } from "./reveal";

interface Props {
  title: string;
  tool: ToolOut | undefined;
  call?: ToolCallOut;
  /** The heading sentence, when the card knows better than the call's confirmation. */
  summary?: string;
}

/** Destructive by the call's flag (issue 6) or the tool's annotation. */
export function isDestructive(call: Pick<ToolCallOut, "destructive"> | undefined, tool: ToolOut | undefined): boolean {
  return call?.destructive ?? tool?.annotations?.destructive ?? false;
}

export function isWrite(call: Pick<ToolCallOut, "write"> | undefined, tool: ToolOut | undefined): boolean {
  return call?.write ?? tool?.write ?? false;
}

/** "Requested by Claude Desktop via MCP" for a call an MCP client made; null otherwise. */
export function originText(call: Pick<ToolCallOut, "client_name"> | undefined): string | null {
  return call?.client_name ? `Requested by ${reveal(call.client_name)} via MCP` : null;
}

function Origin({ call }: { call?: ToolCallOut }) {
  const text = originText(call);
  return text ? (
    <p className="card-origin small muted" data-testid="card-origin">
      {text}
    </p>
  ) : null;
}

export function ToolCardHeader({ title, tool, call, summary: given }: Props) {
  const summary = given ?? call?.confirmation?.summary;
  const destructive = isDestructive(call, tool);
  const tags = (
    <>
      {destructive && <span className="tag danger">deletes data</span>}
      {!destructive && isWrite(call, tool) && <span className="tag">changes data</span>}
    </>
  );
  if (summary) {
    // The tool's title is already on the row above the card (ToolCallRow): not said again here.
    return (
      <header className="card-head stacked">
        {(destructive || isWrite(call, tool)) && <p className="card-kicker">{tags}</p>}
        <h4 className="card-summary" data-testid="card-summary">
          {reveal(summary)}
        </h4>
        <Origin call={call} />
      </header>
    );
  }
  return (
    <>
      <header className="card-head">
        <h4>{reveal(title)}</h4>
        {tags}
      </header>
      <Origin call={call} />
      {tool?.description && <p className="card-desc">{reveal(tool.description)}</p>}
    </>
  );
}
