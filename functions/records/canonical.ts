import { createHash } from 'node:crypto';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** JSON with object keys sorted at every depth; arrays keep their order (contacts do). */
export const canonicalJson = (value: unknown): string => JSON.stringify(sortKeys(value as Json));

const sortKeys = (value: Json): Json => {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .filter((key) => value[key] !== undefined)
        .sort()
        .map((key) => [key, sortKeys(value[key]!)]),
    );
  }
  return value;
};

/** The SHA-256 (64 lowercase hex) of a record's canonical form: the provider-side fields only. */
export const contentSha256 = (fields: unknown): string => createHash('sha256').update(canonicalJson(fields)).digest('hex');
