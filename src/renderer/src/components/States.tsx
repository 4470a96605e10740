import type { ReactNode } from 'react';
import { describeError, isMissingCommand } from '../api/errors';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="state state-loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty" role="status">
      <strong>{title}</strong>
      {children ? <p>{children}</p> : null}
    </div>
  );
}

export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  if (isMissingCommand(error)) return <NotAvailable />;
  return (
    <div className="state state-error" role="alert">
      <strong>Could not load this.</strong>
      <p>{describeError(error)}</p>
      {onRetry ? (
        <button type="button" onClick={onRetry}>
          Retry
        </button>
      ) : null}
    </div>
  );
}

export function NotAvailable({ feature }: { feature?: string }) {
  return (
    <div className="state state-unavailable" role="status">
      <strong>{feature ? `${feature} is not available` : 'Not available'}</strong>
      <p>This build of EvoFlux Memory does not include the commands this view needs yet.</p>
    </div>
  );
}
