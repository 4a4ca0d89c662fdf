import type { VersionKind } from './record-schemas.ts';

/** What the rule needs of the stored and of the incoming observation. */
export interface Observation {
  externalVersion: string | null;
  versionKind: VersionKind;
  sha256: string;
}

export type ConflictKind = 'stale_version' | 'version_reused' | 'invalid_record';

export type Verdict =
  | { apply: 'create' }
  | { apply: 'replace' }
  | { apply: 'unchanged' }
  | { apply: 'conflict'; kind: Exclude<ConflictKind, 'invalid_record'> };

/**
 * The version rule of decisions 10. Provider versions are compared as integers (BigInt: up to
 * 30 digits, beyond a double's exact range). Where the two observations are of different kinds,
 * the content decides, as for local observations: a version appearing or vanishing at the
 * provider is not a reason to refuse what it now says.
 */
export const judge = (current: Observation | null, incoming: Observation): Verdict => {
  if (current === null) return { apply: 'create' };
  const sameContent = current.sha256 === incoming.sha256;
  if (current.versionKind !== 'provider_monotonic' || incoming.versionKind !== 'provider_monotonic') {
    return sameContent ? { apply: 'unchanged' } : { apply: 'replace' };
  }
  const stored = BigInt(current.externalVersion!);
  const offered = BigInt(incoming.externalVersion!);
  if (offered > stored) return { apply: 'replace' };
  if (sameContent) return { apply: 'unchanged' };
  return { apply: 'conflict', kind: offered === stored ? 'version_reused' : 'stale_version' };
};
