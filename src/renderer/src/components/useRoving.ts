import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';

const STEPS: Record<string, number> = { ArrowDown: 1, j: 1, ArrowUp: -1, k: -1, PageDown: 10, PageUp: -10 };

/** Where a navigation key moves from `index` in a list of `length`, or null for other keys. */
export function rovingTarget(key: string, index: number, length: number): number | null {
  let next: number;
  if (key in STEPS) next = index + STEPS[key]!;
  else if (key === 'Home') next = 0;
  else if (key === 'End') next = length - 1;
  else return null;
  return Math.max(0, Math.min(length - 1, next));
}

const isActivation = (e: KeyboardEvent) =>
  (e.key === 'Enter' || e.key === ' ') && (e.target as HTMLElement).dataset.rovingId !== undefined;

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
  const [activeId, setActiveId] = useState<string | null>(null);
  const pendingFocus = useRef<string | null>(null);
  const container = useRef<HTMLElement | null>(null);
  const ids = items.map(idOf);
  // The item focus was last on; else the selected one; else the first.
  const currentId =
    activeId !== null && ids.includes(activeId) ? activeId : initialId && ids.includes(initialId) ? initialId : ids[0];
  const activeIndex = currentId === undefined ? 0 : ids.indexOf(currentId);

  const focusItem = useCallback((id: string) => {
    const el = container.current?.querySelector<HTMLElement>(`[data-roving-id="${CSS.escape(id)}"]`);
    pendingFocus.current = el ? null : id;
    el?.focus();
  }, []);

  // A virtualized row renders a frame after the scroll: focus it once it exists.
  useEffect(() => {
    const id = pendingFocus.current;
    if (!id) return;
    const frame = requestAnimationFrame(() => focusItem(id));
    return () => cancelAnimationFrame(frame);
  });

  const onKeyDown = (e: KeyboardEvent) => {
    if (items.length === 0 || e.altKey || e.ctrlKey || e.metaKey) return;
    if (isActivation(e)) {
      const item = items[activeIndex];
      if (item && onActivate) {
        e.preventDefault();
        onActivate(item, activeIndex);
      }
      return;
    }
    const next = rovingTarget(e.key, activeIndex, items.length);
    if (next === null) return;
    e.preventDefault();
    const id = ids[next]!;
    setActiveId(id);
    reveal?.(next);
    focusItem(id);
  };

  const itemProps = (item: T) => {
    const id = idOf(item);
    return { 'data-roving-id': id, tabIndex: id === currentId ? 0 : -1, onFocus: () => setActiveId(id) };
  };

  const attachList = useCallback((el: HTMLElement | null) => {
    container.current = el;
  }, []);

  return { attachList, onKeyDown, itemProps, activeIndex, focusItem, setActiveId };
}
