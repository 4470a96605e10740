/**
 * Agents guess at limits ("give me 500 facts"). Through the agent door a number outside the
 * range a tool takes is brought to the nearest end of the range and the call goes on; the
 * result says what was used. Owner doors (CLI, HTTP, the window) keep refusing such values,
 * naming the field, because a person or a script should learn the real range.
 */

export interface ClampChange {
  field: string;
  given: number;
  used: number;
}

interface NumberSchema {
  type?: string;
  minimum?: number;
  maximum?: number;
}

/** The top-level numeric fields of a tool's input schema brought into their range. */
export function clampArguments(
  schema: Record<string, unknown>,
  args: Record<string, unknown>,
): { args: Record<string, unknown>; changes: ClampChange[] } {
  const properties = (schema.properties ?? {}) as Record<string, NumberSchema>;
  const changes: ClampChange[] = [];
  const out = { ...args };
  for (const [field, value] of Object.entries(args)) {
    const spec = properties[field];
    if (typeof value !== 'number' || !Number.isFinite(value) || !spec) continue;
    if (spec.type !== 'integer' && spec.type !== 'number') continue;
    let used = spec.type === 'integer' ? Math.round(value) : value;
    if (spec.minimum !== undefined && used < spec.minimum) used = spec.minimum;
    if (spec.maximum !== undefined && used > spec.maximum) used = spec.maximum;
    if (used !== value) {
      out[field] = used;
      changes.push({ field, given: value, used });
    }
  }
  return { args: out, changes };
}

/** What the model reads beside the answer. */
export const clampNote = (changes: readonly ClampChange[]): string =>
  'Note: ' +
  changes.map((c) => `${c.field} ${c.given} is outside the range this tool takes, so ${c.used} was used`).join('; ') +
  '.';
