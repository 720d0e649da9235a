/** Admins: AI employees (list + editor), the skills the server found, and remote MCP servers. */
import { useCallback, useEffect, useMemo, useState } from "react";
import { api, asApiError, type ApiError } from "../api/client";
import type { EmployeeOut, McpServerOut, SkillOut } from "../api/types";
import { isAdmin, useAppData } from "../state/appData";
import { EmployeeEditor } from "./EmployeeEditor";
import { EmployeeList } from "./EmployeeList";
import { McpServersPanel } from "./McpServersPanel";
import { SkillsPanel } from "./SkillsPanel";
import { Loading, Problem, problemWords } from "../components/PageStates";

/** Which employee the editor shows: a slug, a new one, or none yet. */
type Selection = { slug: string } | "new" | null;

export function AdminPage() {
  const { me, tools, reload } = useAppData();
  const [employees, setEmployees] = useState<EmployeeOut[] | null>(null);
  const [skills, setSkills] = useState<SkillOut[]>([]);
  const [mcpServers, setMcpServers] = useState<McpServerOut[]>([]);
  const [selection, setSelection] = useState<Selection>(null);
  // A fresh editor per pick; saving (even creating) keeps the same editor and its notice.
  const [editorKey, setEditorKey] = useState(0);
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  const admin = isAdmin(me);

  const load = useCallback(async () => {
    try {
      const [list, found, remote] = await Promise.all([api.employees(true), api.skills(), api.mcpServers()]);
      setEmployees(list);
      setSkills(found);
      setMcpServers(remote);
      setLoadError(null);
    } catch (e) {
      setLoadError(asApiError(e));
    }
  }, []);

  useEffect(() => {
    if (admin) void load();
  }, [admin, load]);

  const toolList = useMemo(() => Object.values(tools).sort((a, b) => a.name.localeCompare(b.name)), [tools]);

  if (!admin) {
    return (
      <main className="admin pad" data-testid="admin-page">
        <h1>Admin</h1>
        {me ? <p className="muted">Only admins can change employees.</p> : <Loading />}
      </main>
    );
  }

  const selectedSlug = selection === "new" || selection == null ? null : selection.slug;
  const selected = employees?.find((e) => e.slug === selectedSlug) ?? null;

  const select = (next: Selection) => {
    setSelection(next);
    setEditorKey((k) => k + 1);
  };
  const changed = (saved: EmployeeOut) => {
    // Show the saved version at once (the editor stays mounted), then re-read the list.
    setEmployees((list) => [...(list ?? []).filter((e) => e.slug !== saved.slug), saved]);
    setSelection({ slug: saved.slug });
    void load();
    reload();
  };
  const deleted = () => {
    select(null);
    void load();
    reload();
  };

  return (
    <main className="admin" data-testid="admin-page">
      <header className="conversation-header">
        <h1>Admin</h1>
      </header>
      <div className="admin-body">
        {loadError && <Problem {...problemWords(loadError, "The employees could not be loaded")} onAction={() => void load()} level={2} testId="admin-load-error" />}
        <section className="admin-section admin-employees" aria-labelledby="admin-employees-heading">
          <div className="admin-list-pane">
            <div className="admin-list-head">
              <h2 id="admin-employees-heading">Employees</h2>
              <button type="button" data-testid="employee-new" onClick={() => select("new")}>
                New employee
              </button>
            </div>
            {employees ? (
              <EmployeeList employees={employees} selected={selectedSlug} onSelect={(slug) => select({ slug })} />
            ) : (
              <Loading className="muted small" />
            )}
          </div>
          <div className="admin-editor-pane">
            {selection === "new" || selected ? (
              <EmployeeEditor
                key={editorKey}
                employee={selection === "new" ? null : selected}
                skills={skills}
                tools={toolList}
                onSaved={changed}
                onDeleted={deleted}
              />
            ) : (
              <p className="muted">Pick an employee to edit, or create a new one.</p>
            )}
          </div>
        </section>
        <SkillsPanel skills={skills} tools={tools} />
        <McpServersPanel
          servers={mcpServers}
          onRefreshed={(server) => {
            setMcpServers((list) => list.map((s) => (s.name === server.name ? server : s)));
            reload(); // the tool list changed
          }}
        />
      </div>
    </main>
  );
}
