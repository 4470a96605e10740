import type { z } from 'zod';

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  innerType?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  keyType?: z.ZodType;
  valueType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  left?: z.ZodType;
  right?: z.ZodType;
  items?: z.ZodType[];
  rest?: z.ZodType | null;
  getter?: () => z.ZodType;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/**
 * Every object schema inside `schema` (itself included), each once. zod compiles an object
 * schema's parser (a generated function) on its first parse: 2-6 ms for memory_begin_turn's or
 * memory_search's output, paid by the first real call of each command a server answers unless
 * done beforehand (compileObjectParser).
 */
export function objectSchemasIn(schema: z.ZodType, found = new Set<z.ZodType>(), seen = new Set<z.ZodType>()) {
  if (seen.has(schema)) return found;
  seen.add(schema);
  const def = defOf(schema);
  if (def.type === 'object') found.add(schema);
  const inner = [
    ...Object.values(def.shape ?? {}),
    def.catchall,
    def.innerType,
    def.element,
    ...(def.options ?? []),
    def.keyType,
    def.valueType,
    def.in,
    def.out,
    def.left,
    def.right,
    ...(def.items ?? []),
    def.rest,
    def.type === 'lazy' ? def.getter?.() : undefined,
  ];
  for (const s of inner) if (s && typeof s === 'object' && '_zod' in s) objectSchemasIn(s, found, seen);
  return found;
}

/** Parses `{}` with an object schema, result discarded: zod compiles its parser now. */
export const compileObjectParser = (schema: z.ZodType): void => void schema.safeParse({});
