/**
 * Edit one employee (or create one): profile, prompt and model, skills, tool permissions.
 * Save sends only the changed fields (PATCH) or everything (POST for a new one); the
 * server's refusals (422 / 409 / 403) are shown with their details.
 */
import { reveal } from "../cards/reveal";
import { useId, useState, type ReactNode } from "react";
import { ApiError, api, asApiError } from "../api/client";
import type { EmployeeOut, SkillOut, ToolOut } from "../api/types";
import { SkillChecklist } from "./SkillChecklist";
import { ToolPermissions } from "./ToolPermissions";
import { changes, createBody, draftOf, emptyDraft, errorLines, hasChanges, minutesProblem, type Draft } from "./draft";

interface Props {
  /** null: a new employee. */
  employee: EmployeeOut | null;
  skills: SkillOut[];
  tools: ToolOut[];
  onSaved: (employee: EmployeeOut) => void;
  onDeleted: (slug: string) => void;
}

type TextKey =
  | "slug"
  | "name"
  | "avatar"
  | "title"
  | "about"
  | "system_prompt"
  | "model"
  | "greeting"
  | "starters"
  | "approvers"
  | "approval_minutes";

export function EmployeeEditor({ employee, skills, tools, onSaved, onDeleted }: Props) {
  const [original, setOriginal] = useState<EmployeeOut | null>(employee);
  const [draft, setDraft] = useState<Draft>(() => (employee ? draftOf(employee) : emptyDraft()));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const headingId = useId();

  const isNew = original == null;
  const patch = original ? changes(original, draft) : null;
  const dirty = isNew || (patch != null && hasChanges(patch));

  const edit = (change: Partial<Draft>) => {
    setDraft((d) => ({ ...d, ...change }));
    setNotice(null);
  };

  const act = async (what: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      await what();
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setBusy(false);
    }
  };

  const applySaved = (saved: EmployeeOut, message: string) => {
    setOriginal(saved);
    setDraft(draftOf(saved));
    setNotice(message);
    onSaved(saved);
  };

  const save = () =>
    act(async () => {
      const problem = minutesProblem(draft.approval_minutes);
      if (problem) throw new ApiError(422, { code: "invalid_request", message: problem });
      if (original == null) applySaved(await api.createEmployee(createBody(draft)), "Created.");
      else if (patch && hasChanges(patch)) applySaved(await api.updateEmployee(original.slug, patch), "Saved.");
    });

  const reset = () =>
    act(async () => {
      if (original) applySaved(await api.resetEmployee(original.slug), "Reset to the built-in version.");
    });

  const remove = () =>
    act(async () => {
      if (!original) return;
      await api.deleteEmployee(original.slug);
      onDeleted(original.slug);
    });

  const text = (key: TextKey, label: string, opts: { multiline?: number; hint?: ReactNode; required?: boolean } = {}) => (
    <TextField
      key={key}
      name={key}
      label={label}
      value={draft[key]}
      rows={opts.multiline}
      hint={opts.hint}
      required={opts.required}
      disabled={busy}
      onChange={(value) => edit({ [key]: value })}
    />
  );

  return (
    <form
      className="employee-editor"
      data-testid="employee-form"
      data-slug={original?.slug ?? ""}
      aria-labelledby={headingId}
      noValidate // the server validates; its 422 is shown below
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <header className="editor-head">
        <h2 id={headingId}>{isNew ? "New employee" : draft.name || original.slug}</h2>
        {original?.builtin && <span className="badge">built-in</span>}
        {draft.disabled && <span className="badge warn">disabled</span>}
      </header>

      <div className="field-grid">
        {isNew && text("slug", "Slug", { required: true, hint: "Lowercase letters, digits, - and _; it cannot change later." })}
        {text("name", "Name", { required: true })}
        {text("avatar", "Avatar", { hint: "An emoji or short text." })}
        {text("title", "Title")}
        {text("model", "Model", { hint: "provider:model, or empty for the server's model." })}
      </div>
      {text("about", "About", { multiline: 2 })}
      {text("greeting", "Greeting", { multiline: 2 })}
      {text("starters", "Starter prompts", { multiline: 3, hint: "One per line." })}
      {text("system_prompt", "System prompt", { multiline: 6 })}

      <label className="check">
        <input
          type="checkbox"
          data-testid="employee-disabled"
          checked={draft.disabled}
          disabled={busy}
          onChange={(e) => edit({ disabled: e.target.checked })}
        />
        Disabled <span className="muted small">(hidden from users; their conversations stay readable but take no new messages)</span>
      </label>

      <fieldset className="approval-rules">
        <legend>Who decides, and how long a call waits</legend>
        {text("approvers", "Approvers", {
          multiline: 2,
          hint: "One per line: a user name, or group:NAME. Besides the person chatting, they may approve or reject calls in anyone's conversation with this employee.",
        })}
        {text("approval_minutes", "Approval timeout (minutes)", {
          hint: "A call nobody decides in time is closed without running. Empty: the server's default (24 hours).",
        })}
      </fieldset>

      <SkillChecklist skills={skills} draft={draft} disabled={busy} onChange={edit} />
      <ToolPermissions tools={tools} overrides={draft.tool_overrides} disabled={busy} onChange={(tool_overrides) => edit({ tool_overrides })} />

      {error && (
        <div className="error admin-error" role="alert" data-testid="admin-error" data-code={error.code} data-status={error.status}>
          {errorLines(error).map((line, i) => (i === 0 ? <p key={i}>{line}</p> : <p key={i} className="small">{line}</p>))}
        </div>
      )}
      {notice && (
        <p className="saved" role="status" data-testid="admin-saved">
          {notice}
        </p>
      )}

      <div className="actions editor-actions">
        <button type="submit" className="primary" data-testid="employee-save" disabled={busy || !dirty}>
          {isNew ? "Create employee" : dirty ? "Save" : "Saved"}
        </button>
        {!isNew && dirty && (
          <button type="button" disabled={busy} onClick={() => setDraft(draftOf(original))}>
            Discard changes
          </button>
        )}
        {original?.builtin && (
          <button type="button" data-testid="employee-reset" disabled={busy} onClick={() => void reset()}>
            Reset to built-in
          </button>
        )}
        {original && !original.builtin && !confirmDelete && (
          <button type="button" className="danger" data-testid="employee-delete" disabled={busy} onClick={() => setConfirmDelete(true)}>
            Delete
          </button>
        )}
        {original && !original.builtin && confirmDelete && (
          <span className="confirm-delete" role="group" aria-label="Confirm delete">
            <span>Delete {reveal(original.name)}? Their conversations stay readable.</span>
            <button type="button" className="danger" data-testid="employee-delete-confirm" disabled={busy} onClick={() => void remove()}>
              Delete
            </button>
            <button type="button" disabled={busy} onClick={() => setConfirmDelete(false)}>
              Keep
            </button>
          </span>
        )}
      </div>
    </form>
  );
}

interface TextFieldProps {
  name: string;
  label: string;
  value: string;
  rows?: number;
  hint?: ReactNode;
  required?: boolean;
  disabled: boolean;
  onChange: (value: string) => void;
}

function TextField({ name, label, value, rows, hint, required, disabled, onChange }: TextFieldProps) {
  const id = useId();
  const testId = `employee-${name.replace(/_/g, "-")}`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {rows ? (
        <textarea id={id} name={name} data-testid={testId} rows={rows} value={value} required={required} disabled={disabled} aria-describedby={hint ? `${id}-hint` : undefined} onChange={(e) => onChange(e.target.value)} />
      ) : (
        <input id={id} name={name} data-testid={testId} value={value} required={required} disabled={disabled} aria-describedby={hint ? `${id}-hint` : undefined} onChange={(e) => onChange(e.target.value)} />
      )}
      {hint && (
        <p className="muted small hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}
