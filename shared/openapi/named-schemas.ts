import type * as v from 'valibot';
import type { AnyOperation } from '../http/operation.ts';

type Schema = v.GenericSchema;

const identifier = /^[A-Z][A-Za-z0-9]*$/;

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'schema';

/** The schemas directly inside another: entries, items, wrapped, options, later pipe schemas. */
const childrenOf = (schema: Schema): Schema[] => {
  const s = schema as unknown as Record<string, unknown>;
  return [
    ...Object.values((s.entries as Record<string, unknown> | undefined) ?? {}),
    s.item,
    s.wrapped,
    s.rest,
    s.key,
    s.value,
    ...(Array.isArray(s.items) ? s.items : []),
    ...(Array.isArray(s.options) ? s.options : []),
    // The first pipe item is the schema itself without its pipe: its children are already listed.
    ...(Array.isArray(s.pipe) ? s.pipe.slice(1) : []),
  ].filter(isSchema);
};

/** `v.pipe(v.object(...), v.title('Vehicle'))` names a schema for the document. */
const titleOf = (schema: Schema): string | undefined => {
  const pipe = (schema as { pipe?: unknown[] }).pipe ?? [];
  for (const item of pipe) {
    const action = item as { kind?: string; type?: string; title?: unknown };
    if (action.kind === 'metadata' && action.type === 'title' && typeof action.title === 'string' && identifier.test(action.title)) {
      return action.title;
    }
  }
  return undefined;
};

export const operationSchemas = (operation: AnyOperation): Schema[] =>
  [operation.params, operation.query, operation.body, ...Object.values(operation.responses).map((response) => response.schema)].filter(isSchema);

/** createVehicle, getVehicle and updateVehicle all return a Vehicle. */
const nounOf = (operationId: string): string => operationId.replace(/^[a-z]+/, '');

const mostCommon = (words: string[]): string | undefined => {
  const counts = new Map<string, number>();
  for (const word of words) counts.set(word, (counts.get(word) ?? 0) + 1);
  const ranked = [...counts].sort((a, b) => b[1] - a[1]);
  return ranked.length > 0 && ranked[0]![1] !== ranked[1]?.[1] ? ranked[0]![0] : undefined;
};

/**
 * The schemas that get a name in `components.schemas`: those reserved by the document itself,
 * those titled with an identifier, and a schema that several operations return whole (named
 * after the noun of their operationIds), since a client sees one resource there, not copies.
 */
export const namedSchemas = (operations: AnyOperation[], reserved: Record<string, Schema>): Record<string, Schema> => {
  const names = new Map<Schema, string>();
  const taken = new Set<string>();
  const name = (schema: Schema, candidate: string): void => {
    if (names.has(schema) || taken.has(candidate)) return;
    names.set(schema, candidate);
    taken.add(candidate);
  };
  for (const [candidate, schema] of Object.entries(reserved)) name(schema, candidate);

  const seen = new Set<Schema>();
  const visit = (schema: Schema): void => {
    if (seen.has(schema)) return;
    seen.add(schema);
    const title = titleOf(schema);
    if (title) name(schema, title);
    for (const child of childrenOf(schema)) visit(child);
  };
  for (const operation of operations) for (const schema of operationSchemas(operation)) visit(schema);

  const returnedBy = new Map<Schema, Set<string>>();
  for (const operation of operations) {
    for (const response of Object.values(operation.responses)) {
      if (!isSchema(response.schema)) continue;
      const ids = returnedBy.get(response.schema) ?? new Set<string>();
      returnedBy.set(response.schema, ids.add(operation.operationId));
    }
  }
  for (const [schema, ids] of returnedBy) {
    if (ids.size < 2) continue;
    const noun = mostCommon([...ids].map(nounOf));
    if (noun && identifier.test(noun)) name(schema, noun);
  }

  return Object.fromEntries([...names].map(([schema, candidate]) => [candidate, schema]));
};
