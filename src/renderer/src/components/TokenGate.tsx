import { useState } from 'react';
import { rememberToken } from '../api/transport';
import { api } from '../api/client';

/** Shown in a browser tab that has no (accepted) HTTP token: nothing can load until it has one. */
export function TokenGate({ message }: { message?: string | null }) {
  const [value, setValue] = useState('');
  const [bad, setBad] = useState(false);
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    const token = value.trim();
    if (rememberToken(window.sessionStorage, token)) api().useToken(token);
    else setBad(true);
  };
  return (
    <main className="gate">
      <form className="card gate-card" onSubmit={submit}>
        <h1>EvoFlux Memory needs its access token</h1>
        {message ? (
          <p className="error-text" role="alert" data-testid="gate-message">
            {message}
          </p>
        ) : null}
        <p>
          Open the address <code>npx evoflux-memory serve</code> printed (it ends in <code>#token=…</code>), or paste
          the token from <code>&lt;home&gt;/http-token</code>. It is kept for this tab only.
        </p>
        <label className="muted small">
          Token
          <input
            type="password"
            autoComplete="off"
            value={value}
            onChange={(e) => {
              setValue(e.target.value);
              setBad(false);
            }}
            aria-invalid={bad}
            aria-describedby={bad ? 'token-error' : undefined}
            autoFocus
          />
        </label>
        {bad ? (
          <p className="error-text small" id="token-error">
            That does not look like a token (43 letters, digits, - or _).
          </p>
        ) : null}
        <button type="submit" className="primary" disabled={!value.trim()}>
          Continue
        </button>
      </form>
    </main>
  );
}
