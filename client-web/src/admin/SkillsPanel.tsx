/**
 * Every skill the server found: loaded ones with their tools and commands, failed ones with the
 * reason. A tool that cannot run now (its MCP server is down: `tools`, from /api/tools) says why.
 */
import { reveal } from "../cards/reveal";
import type { SkillOut, ToolOut } from "../api/types";

export function SkillsPanel({ skills, tools = {} }: { skills: SkillOut[]; tools?: Record<string, ToolOut> }) {
  const failed = skills.filter((s) => s.status === "failed").length;
  return (
    <section className="admin-section" aria-labelledby="admin-skills-heading" data-testid="skills-list">
      <h2 id="admin-skills-heading">
        Skills <span className="muted small">({skills.length} found{failed > 0 ? `, ${failed} failed` : ""})</span>
      </h2>
      <ul className="skill-list">
        {skills.map((s) => (
          <li key={`${s.name}:${s.path ?? ""}`} className={`skill-row ${s.status}`} data-testid="skill-row" data-skill={s.name} data-status={s.status}>
            <div className="skill-line">
              <strong>{reveal(s.name)}</strong>
              {s.version && <span className="muted small">v{s.version}</span>}
              <span className={`badge ${s.status === "failed" ? "status-failed" : "status-succeeded"}`}>{s.status}</span>
            </div>
            {s.description && <p className="muted small">{reveal(s.description)}</p>}
            {s.status === "failed" && s.error && (
              <pre className="skill-error" data-testid="skill-error">
                {s.error}
              </pre>
            )}
            {s.tools.length > 0 && (
              <p className="small">
                Tools: {s.tools.map((t, i) => (
                  <span key={t}>
                    {i > 0 && ", "}
                    <code>{reveal(t)}</code>
                    {tools[t] && !tools[t].available && tools[t].reason && <span className="error"> (unavailable: {reveal(tools[t].reason ?? "")})</span>}
                  </span>
                ))}
              </p>
            )}
            {s.commands.length > 0 && (
              <p className="small">
                Commands: {s.commands.map((c, i) => (
                  <span key={c.command}>
                    {i > 0 && ", "}
                    <code>/{reveal(c.command)}</code> {reveal(c.title)}
                  </span>
                ))}
              </p>
            )}
            {s.path && <p className="muted small"><code>{s.path}</code></p>}
          </li>
        ))}
        {skills.length === 0 && <li className="muted">No skills found.</li>}
      </ul>
    </section>
  );
}
