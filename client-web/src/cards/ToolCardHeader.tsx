/** The head of a tool's approval card: title, what the tool does to data, its description. */
import type { ToolOut } from "../api/types";

interface Props {
  title: string;
  tool: ToolOut | undefined;
}

export function ToolCardHeader({ title, tool }: Props) {
  return (
    <>
      <header className="card-head">
        <h4>{title}</h4>
        {tool?.annotations?.destructive && <span className="tag danger">destructive</span>}
        {tool?.write && <span className="tag">writes</span>}
      </header>
      {tool?.description && <p className="card-desc">{tool.description}</p>}
    </>
  );
}
