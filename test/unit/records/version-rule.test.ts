import { describe, expect, it } from 'vitest';
import { canonicalJson, contentSha256 } from '../../../functions/records/canonical.ts';
import { judge, type Observation } from '../../../functions/records/version-rule.ts';

const local = (sha: string): Observation => ({ externalVersion: null, versionKind: 'local_observation', sha256: sha });
const monotonic = (version: string, sha: string): Observation => ({ externalVersion: version, versionKind: 'provider_monotonic', sha256: sha });

describe('the version rule (decisions 10)', () => {
  it('creates what is not stored yet', () => {
    expect(judge(null, local('a'))).toEqual({ apply: 'create' });
  });

  it('local observations: other content replaces, the same content is unchanged', () => {
    expect(judge(local('a'), local('b'))).toEqual({ apply: 'replace' });
    expect(judge(local('a'), local('a'))).toEqual({ apply: 'unchanged' });
  });

  it('provider versions: greater replaces, lower with other content is stale, same version with other content is reused', () => {
    expect(judge(monotonic('7', 'a'), monotonic('8', 'b'))).toEqual({ apply: 'replace' });
    expect(judge(monotonic('7', 'a'), monotonic('8', 'a'))).toEqual({ apply: 'replace' });
    expect(judge(monotonic('7', 'a'), monotonic('6', 'b'))).toEqual({ apply: 'conflict', kind: 'stale_version' });
    expect(judge(monotonic('7', 'a'), monotonic('7', 'b'))).toEqual({ apply: 'conflict', kind: 'version_reused' });
    expect(judge(monotonic('7', 'a'), monotonic('7', 'a'))).toEqual({ apply: 'unchanged' });
    expect(judge(monotonic('7', 'a'), monotonic('6', 'a'))).toEqual({ apply: 'unchanged' });
  });

  it('compares versions as integers, not as text or doubles', () => {
    // As text "9" > "10"; as doubles the two 30-digit values are equal.
    expect(judge(monotonic('9', 'a'), monotonic('10', 'b'))).toEqual({ apply: 'replace' });
    const big = '123456789012345678901234567890';
    const bigger = '123456789012345678901234567891';
    expect(Number(big)).toBe(Number(bigger));
    expect(judge(monotonic(big, 'a'), monotonic(bigger, 'b'))).toEqual({ apply: 'replace' });
    expect(judge(monotonic(bigger, 'a'), monotonic(big, 'b'))).toEqual({ apply: 'conflict', kind: 'stale_version' });
  });

  it('lets the content decide where the kinds differ', () => {
    expect(judge(local('a'), monotonic('3', 'b'))).toEqual({ apply: 'replace' });
    expect(judge(monotonic('3', 'a'), local('a'))).toEqual({ apply: 'unchanged' });
  });
});

describe('the canonical form', () => {
  it('does not depend on key order, at any depth, and keeps array order', () => {
    const a = { sku: 'X', contacts: [{ b: 1, a: 2 }, { a: 3 }], name: 'n' };
    const b = { name: 'n', contacts: [{ a: 2, b: 1 }, { a: 3 }], sku: 'X' };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(contentSha256(a)).toBe(contentSha256(b));
    expect(contentSha256(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(contentSha256({ ...a, contacts: [...a.contacts].reverse() })).not.toBe(contentSha256(a));
  });

  it('tells null from absent and text from numbers', () => {
    expect(contentSha256({ barCode: null })).not.toBe(contentSha256({}));
    expect(contentSha256({ q: '1' })).not.toBe(contentSha256({ q: 1 }));
  });
});
