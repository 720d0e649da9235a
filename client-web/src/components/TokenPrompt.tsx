/** Asks for an API token after a 401; it is kept in localStorage. */
import { useId, useState } from "react";

interface Props {
  /** Saves the token (or, with null, forgets the stored one) and retries. */
  onSave: (token: string | null) => void;
  hasStoredToken: boolean;
  /** The refused token is the one the person just typed, not one saved before. */
  tokenTyped?: boolean;
}

export function TokenPrompt({ onSave, hasStoredToken, tokenTyped = false }: Props) {
  const [token, setToken] = useState("");
  const id = useId();
  return (
    <div className="overlay" role="dialog" aria-modal="true" aria-labelledby={`${id}-title`}>
      <form
        className="token-prompt"
        onSubmit={(e) => {
          e.preventDefault();
          if (token.trim()) onSave(token.trim());
        }}
      >
        <h2 id={`${id}-title`}>Sign in</h2>
        <p className="muted small">
          This server needs an access token. On the server, <code>interlock users create NAME</code>{" "}
          prints one for a new person and <code>interlock users token NAME</code> a new one for an
          existing person (<code>local</code>: the conversations from before there were users).
        </p>
        {hasStoredToken && (
          <p className="error small" role="alert" data-testid="token-refused">
            {tokenTyped ? "The token you entered" : "The saved token"} was not accepted (mistyped,
            revoked, or for another server). Paste another, or forget it.
          </p>
        )}
        <label htmlFor={id}>Access token</label>
        <input
          id={id}
          type="password"
          autoComplete="off"
          autoFocus
          data-testid="token-input"
          value={token}
          onChange={(e) => setToken(e.target.value)}
        />
        <div className="actions">
          <button type="submit" className="primary" data-testid="token-save" disabled={!token.trim()}>
            Save token
          </button>
          {hasStoredToken && (
            <button type="button" data-testid="token-clear" onClick={() => onSave(null)}>
              {tokenTyped ? "Forget this token" : "Forget the saved token"}
            </button>
          )}
        </div>
      </form>
    </div>
  );
}
