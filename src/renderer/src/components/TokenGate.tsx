import { useState } from 'react';
import { rememberToken } from '../api/transport';

/** Shown in a browser tab that has no HTTP token: nothing can load until it has one. */
export function TokenGate() {
  const [value, setValue] = useState('');
  const [bad, setBad] = useState(false);
  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    if (rememberToken(window.sessionStorage, value.trim())) window.location.reload();
    else setBad(true);
  };
  return (
    <div className="gate" role="main">
      <form className="card gate-card" onSubmit={submit}>
        <h2>EvoFlux Memory needs its access token</h2>
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
            onChange={(e) => (setValue(e.target.value), setBad(false))}
            aria-invalid={bad}
            autoFocus
          />
        </label>
        {bad ? <p className="error-text small">That does not look like a token (43 letters, digits, - or _).</p> : null}
        <button type="submit" className="primary" disabled={!value.trim()}>
          Continue
        </button>
      </form>
    </div>
  );
}
