import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';

const KEYS = new Set(['ArrowDown', 'ArrowUp', 'Home', 'End', 'PageDown', 'PageUp', 'j', 'k']);

/**
 * Roving focus for a list: the list is one Tab stop (only the active item has tabIndex 0) and
 * the arrow keys, Home/End and PageUp/PageDown move focus between items. `reveal` brings an
 * item that is not rendered yet into view (a virtualized list scrolls to it) before focusing.
 */
export function useRoving<T>({
  items,
  idOf,
  initialId,
  reveal,
  onActivate,
}: {
  items: readonly T[];
  idOf(item: T): string;
  initialId?: string | null;
  reveal?(index: number): void;
  onActivate?(item: T, index: number): void;
}) {
  const [activeId, setActiveId] = useState<string | null>(initialId ?? null);
  const pendingFocus = useRef<string | null>(null);
  const container = useRef<HTMLElement | null>(null);
  const ids = items.map(idOf);
  const activeIndex = Math.max(0, activeId === null ? 0 : ids.indexOf(activeId));
  const currentId = ids[activeIndex] ?? null;

  useEffect(() => {
    if (initialId && ids.includes(initialId)) setActiveId(initialId);
  }, [initialId]);

  const focusItem = useCallback((id: string) => {
    const el = container.current?.querySelector<HTMLElement>(`[data-roving-id="${CSS.escape(id)}"]`);
    if (el) {
      el.focus({ preventScroll: false });
      pendingFocus.current = null;
    } else pendingFocus.current = id;
  }, []);

  // A virtualized row renders a frame after the scroll: focus it once it exists.
  useEffect(() => {
    if (!pendingFocus.current) return;
    const id = pendingFocus.current;
    const frame = requestAnimationFrame(() => focusItem(id));
    return () => cancelAnimationFrame(frame);
  });

  const onKeyDown = (e: KeyboardEvent) => {
    if (items.length === 0) return;
    if (e.key === 'Enter' || e.key === ' ') {
      const item = items[activeIndex];
      if (item && onActivate && (e.target as HTMLElement).dataset.rovingId !== undefined) {
        e.preventDefault();
        onActivate(item, activeIndex);
      }
      return;
    }
    if (!KEYS.has(e.key) || e.altKey || e.ctrlKey || e.metaKey) return;
    e.preventDefault();
    const step = { ArrowDown: 1, j: 1, ArrowUp: -1, k: -1, PageDown: 10, PageUp: -10 }[e.key as string];
    let next = step === undefined ? (e.key === 'Home' ? 0 : items.length - 1) : activeIndex + step;
    next = Math.max(0, Math.min(items.length - 1, next));
    const id = ids[next]!;
    setActiveId(id);
    reveal?.(next);
    focusItem(id);
  };

  const itemProps = (item: T) => {
    const id = idOf(item);
    return {
      'data-roving-id': id,
      tabIndex: id === currentId ? 0 : -1,
      onFocus: () => setActiveId(id),
    };
  };

  return { container, onKeyDown, itemProps, activeIndex, activeId: currentId, setActiveId };
}
