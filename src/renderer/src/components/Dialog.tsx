import { useEffect, useRef, type ReactNode } from 'react';

/**
 * A modal confirmation. Escape or the backdrop cancels; focus starts on Cancel so Enter never
 * confirms a destructive action by accident, and Tab stays inside the dialog.
 */
export function Dialog({
  title,
  children,
  onClose,
  actions,
}: {
  title: string;
  children: ReactNode;
  onClose(): void;
  actions: ReactNode;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const previous = document.activeElement as HTMLElement | null;
    ref.current?.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    return () => previous?.focus?.();
  }, []);
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      onClose();
    }
    if (e.key === 'Tab' && ref.current) {
      const focusable = [
        ...ref.current.querySelectorAll<HTMLElement>('button:not([disabled]), a[href], input, select, textarea'),
      ];
      const first = focusable[0];
      const last = focusable[focusable.length - 1];
      const wrapTo = e.shiftKey ? document.activeElement === first && last : document.activeElement === last && first;
      if (wrapTo) {
        e.preventDefault();
        wrapTo.focus();
      }
    }
  };
  return (
    <div className="backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        className="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="dialog-title"
        ref={ref}
        onKeyDown={onKeyDown}
      >
        <h2 id="dialog-title">{title}</h2>
        <div className="dialog-body">{children}</div>
        <div className="dialog-actions">{actions}</div>
      </div>
    </div>
  );
}
