import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkSkills } from '../../../shared/planning/field-rules.ts';

afterEach(() => vi.restoreAllMocks());

describe('skills de-duplicated in linear time (decisions 18)', () => {
  it('keeps the first of each, trimmed, in order, and names the list when it has too many', () => {
    expect(checkSkills([' frío', 'grúa', 'frío ', 'Frío', 'grúa'], 'body.skills', 10)).toEqual({ skills: ['frío', 'grúa', 'Frío'], issues: [] });
    expect(checkSkills(['a', 'b', 'c', 'a'], 'body.skills', 2).issues).toEqual([{ path: 'body.skills', message: 'must have at most 2 different skills' }]);
    expect(checkSkills(['ok', '  ', 'x'.repeat(41)], 'body.skills', 10).issues.map((i) => i.path)).toEqual(['body.skills.1', 'body.skills.2']);
  });

  it('never searches the skills kept so far for each one: 50,000 distinct skills cost no list scan', () => {
    // A list searched per entry (includes, indexOf, some, find) is quadratic in what a body may send.
    const scans = ['includes', 'indexOf', 'some', 'find', 'findIndex'].map((name) => vi.spyOn(Array.prototype, name as 'includes'));
    const many = Array.from({ length: 50_000 }, (_, i) => `s${i}`);
    const { skills, issues } = checkSkills(many, 'body.skills', 10);
    const calls = scans.reduce((n, spy) => n + spy.mock.calls.length, 0);
    vi.restoreAllMocks();
    expect(calls).toBe(0);
    expect(skills).toHaveLength(50_000);
    expect(issues).toEqual([{ path: 'body.skills', message: 'must have at most 10 different skills' }]);
  });
});
