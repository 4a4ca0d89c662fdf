import * as v from 'valibot';
import type { FieldIssue } from '../../shared/errors.ts';
import { amountIssue, amountValue, checkSkills } from '../../shared/planning/field-rules.ts';
import { DEFAULT_TRACKING_STOP_MINUTES, getTenant } from '../../shared/tenancy/tenants.ts';
import { ClockTime } from '../routing/preview-schemas.ts';
import { MAX_ORDER_SKILLS, MAX_SERVICE_MINUTES, MAX_TIME_WINDOWS } from './planning-schemas.ts';
import type { CreateOrderBody } from './schemas.ts';

export interface OrderPlanning {
  timeWindows: { from: string; to: string }[];
  serviceMinutes: number;
  load: { weightKg: number; volumeM3: number };
  skills: string[];
}

/** What orders stored before decisions 15 read as: any time, the default stop, no load, no skills. */
export const storedPlanning = (item: Record<string, unknown>): OrderPlanning => ({
  timeWindows: (item.timeWindows as OrderPlanning['timeWindows'] | undefined) ?? [],
  serviceMinutes: (item.serviceMinutes as number | undefined) ?? DEFAULT_TRACKING_STOP_MINUTES,
  load: (item.load as OrderPlanning['load'] | undefined) ?? { weightKg: 0, volumeM3: 0 },
  skills: (item.skills as string[] | undefined) ?? [],
});

/**
 * The windows as stored: each well formed with from < to, then sorted; two that share any minute
 * (touching ones too: the optimizer's windows are inclusive and disjoint) name the later one sent.
 */
const checkWindows = (windows: CreateOrderBody['timeWindows']): { timeWindows: OrderPlanning['timeWindows']; issues: FieldIssue[] } => {
  const issues: FieldIssue[] = [];
  if (windows.length > MAX_TIME_WINDOWS) issues.push({ path: 'body.timeWindows', message: `must have at most ${MAX_TIME_WINDOWS} windows` });
  const good: { from: string; to: string; index: number }[] = [];
  windows.forEach(({ from, to }, index) => {
    const path = `body.timeWindows.${index}`;
    const fromOk = v.is(ClockTime, from);
    const toOk = v.is(ClockTime, to);
    if (!fromOk) issues.push({ path: `${path}.from`, message: 'must be a time HH:MM' });
    if (!toOk) issues.push({ path: `${path}.to`, message: 'must be a time HH:MM' });
    if (fromOk && toOk && from >= to) issues.push({ path: `${path}.to`, message: `must be later than from (${from})` });
    else if (fromOk && toOk) good.push({ from, to, index });
  });
  const sorted = [...good].sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : a.index - b.index));
  for (let i = 1; i < sorted.length; i++) {
    const [earlier, later] = [sorted[i - 1], sorted[i]];
    if (later.from <= earlier.to) {
      const [first, second] = earlier.index < later.index ? [earlier, later] : [later, earlier];
      issues.push({ path: `body.timeWindows.${second.index}`, message: `overlaps or touches window ${first.index} (${first.from}-${first.to}); join them into one window` });
    }
  }
  return { timeWindows: sorted.map(({ from, to }) => ({ from, to })), issues };
};

/**
 * Judges the planning fields of a new order (decisions 15) and gives them as stored; `null` for
 * serviceMinutes means the tenant's default, resolved by `resolvePlanning`.
 */
export const checkOrderPlanning = (body: CreateOrderBody): { planning: Omit<OrderPlanning, 'serviceMinutes'> & { serviceMinutes: number | null }; issues: FieldIssue[] } => {
  const windows = checkWindows(body.timeWindows);
  const issues = [...windows.issues];
  const minutes = body.serviceMinutes;
  if (minutes !== undefined && !(Number.isInteger(minutes) && minutes >= 0 && minutes <= MAX_SERVICE_MINUTES)) {
    issues.push({ path: 'body.serviceMinutes', message: `must be a whole number of minutes from 0 to ${MAX_SERVICE_MINUTES}` });
  }
  for (const field of ['weightKg', 'volumeM3'] as const) {
    const issue = amountIssue(body.load[field], `body.load.${field}`, false);
    if (issue) issues.push(issue);
  }
  const skills = checkSkills(body.skills, 'body.skills', MAX_ORDER_SKILLS);
  issues.push(...skills.issues);
  return {
    planning: {
      timeWindows: windows.timeWindows,
      serviceMinutes: minutes ?? null,
      load: { weightKg: amountValue(body.load.weightKg), volumeM3: amountValue(body.load.volumeM3) },
      skills: skills.skills,
    },
    issues,
  };
};

/** The order's own minutes, or the tenant's trackingStopMinutes now: stored, so later reads need no tenant. */
export const resolvePlanning = async (tenantId: string, planning: ReturnType<typeof checkOrderPlanning>['planning']): Promise<OrderPlanning> => ({
  ...planning,
  serviceMinutes: planning.serviceMinutes ?? (await getTenant(tenantId))?.trackingStopMinutes ?? DEFAULT_TRACKING_STOP_MINUTES,
});
