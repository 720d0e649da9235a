/** The employees an admin can edit, disabled ones included. */
import { reveal } from "../cards/reveal";
import type { EmployeeOut } from "../api/types";
import { Avatar } from "../components/Avatar";

interface Props {
  employees: EmployeeOut[];
  selected: string | null;
  onSelect: (slug: string) => void;
}

export function EmployeeList({ employees, selected, onSelect }: Props) {
  return (
    <ul className="admin-employee-list">
      {employees.map((e) => (
        <li key={e.slug}>
          <button
            type="button"
            className={e.slug === selected ? "admin-employee active" : "admin-employee"}
            aria-current={e.slug === selected ? "true" : undefined}
            data-testid="admin-employee"
            data-slug={e.slug}
            data-disabled={e.disabled ? "true" : "false"}
            onClick={() => onSelect(e.slug)}
          >
            <Avatar avatar={e.avatar} name={e.name} size="sm" />
            <span className="admin-employee-text" title={reveal(`${e.name} (${e.slug})`)}>
              <span>{reveal(e.name)}</span>
              <span className="muted small">{reveal(e.slug)}</span>
            </span>
            {e.builtin && <span className="badge">built-in</span>}
            {e.disabled && <span className="badge warn">disabled</span>}
          </button>
        </li>
      ))}
    </ul>
  );
}
