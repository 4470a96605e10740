import { v7 as uuidv7 } from 'uuid';

/** UUIDv7: time-ordered, so ids sort by creation and index well. */
export const newId = (): string => uuidv7();

/** The random tail of a UUIDv7 (the first digits are timestamp bits and collide across a day). */
export const idSlug = (id: string): string => id.replace(/-/g, '').slice(-8).toLowerCase();
