import type { FieldIssue } from '../errors.ts';

/**
 * The value rules of the planning fields orders and vehicles carry (decisions 15). The request
 * schemas take the types (a wrong type is a 400); these judge the values, so that a breach is a
 * 422 naming each field, all of them at once.
 */

/**
 * Loads and capacities are at most this, in kg and m³ alike: no vehicle carries more, and it keeps
 * every sum of 1,000 orders far inside what a JSON number and DynamoDB hold exactly.
 */
export const MAX_AMOUNT = 1_000_000;
export const MAX_SKILL_LENGTH = 40;

/** The number as the client wrote it has at most 3 decimals (1e-7 prints as such and fails). */
const threeDecimals = (value: number): boolean => /^\d+(\.\d{1,3})?$/.test(String(Math.abs(value)));

/**
 * A load (`positive` false: >= 0) or a capacity (`positive` true: > 0) in kg or m³, up to 3
 * decimals. Returns the issue, or null when the value is acceptable.
 */
export const amountIssue = (value: number, path: string, positive: boolean): FieldIssue | null => {
  if (!Number.isFinite(value)) return { path, message: 'must be a finite number' };
  if (positive ? value <= 0 : value < 0) return { path, message: positive ? 'must be greater than 0 (null for unlimited)' : 'must be at least 0' };
  if (value > MAX_AMOUNT) return { path, message: `must be at most ${MAX_AMOUNT}` };
  if (!threeDecimals(value)) return { path, message: 'must have at most 3 decimals' };
  return null;
};

/** -0 becomes 0, so that what is stored and answered reads as the client meant. */
export const amountValue = (value: number): number => value + 0;

/**
 * Skills are trimmed and compared exactly (case counts); a repeated one is kept once, where it
 * first appears. At most `max` distinct skills of 1-40 characters.
 */
export const checkSkills = (values: string[], path: string, max: number): { skills: string[]; issues: FieldIssue[] } => {
  const issues: FieldIssue[] = [];
  // A Set keeps the first of each in insertion order: linear in the list a body may make long
  // (a list searched per entry is quadratic: 50,000 distinct skills were a billion comparisons).
  const skills = new Set<string>();
  values.forEach((raw, i) => {
    const skill = raw.trim();
    if (skill.length === 0) issues.push({ path: `${path}.${i}`, message: 'must not be empty' });
    else if (skill.length > MAX_SKILL_LENGTH) issues.push({ path: `${path}.${i}`, message: `must be at most ${MAX_SKILL_LENGTH} characters` });
    else skills.add(skill);
  });
  if (skills.size > max) issues.push({ path, message: `must have at most ${max} different skills` });
  return { skills: [...skills], issues };
};
