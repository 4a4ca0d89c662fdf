import { describe, expect, it } from 'vitest';
import { kneeOf, type StepResult } from '../../../bench/load/knee.ts';
import { trendOf } from '../../../bench/load/trend.ts';

const step = (connections: number, rps: number, p99 = 100, errors = 0): StepResult => ({ connections, rps, p50: p99 / 2, p99, errors, limited: 0, requests: rps * 10, loadAverage: 1 });

describe('the knee of the load ladder', () => {
  it('is the last step before throughput stops rising by 10 %', () => {
    const { knee, broke } = kneeOf([step(1, 50), step(2, 95), step(4, 170), step(8, 180)]);
    expect(knee?.connections).toBe(4);
    expect(broke).toMatchObject({ why: 'saturated', step: { connections: 8 } });
  });

  it('is the step before the first non-429 error, however fast that step was', () => {
    const { knee, broke } = kneeOf([step(1, 50), step(2, 95), step(4, 190, 100, 1)]);
    expect(knee?.connections).toBe(2);
    expect(broke?.why).toBe('errors');
  });

  it('is the step before p99 passes one second', () => {
    expect(kneeOf([step(1, 50), step(2, 95, 400), step(4, 190, 1500)]).knee?.connections).toBe(2);
  });

  it('does not exist when the first step already breaks', () => {
    expect(kneeOf([step(1, 50, 2000)]).knee).toBeUndefined();
  });
});

describe('a memory series over the soak', () => {
  const series = (value: (i: number) => number) => Array.from({ length: 40 }, (_, i) => ({ at: i * 15, value: value(i) }));

  it('grows when it climbs steadily (a leak of 1 % of the mean per sample)', () => {
    expect(trendOf(series((i) => 100 + i)).flat).toBe(false);
  });

  it('is flat through GC saw-teeth and a step up during the warm-up', () => {
    expect(trendOf(series((i) => (i < 5 ? 60 : 100) + (i % 4) * 3)).flat).toBe(true);
  });

  it('is flat after a one-off step up followed by a plateau', () => {
    expect(trendOf(series((i) => (i < 14 ? 285 : 309))).flat).toBe(true);
  });
});
