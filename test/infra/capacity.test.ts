import { describe, expect, it, beforeAll } from 'vitest';
import { API_SHARE, NEW_TABLE_STREAM_SHARDS, SCHEDULED_FUNCTIONS, capacityPlan } from '../../infra/capacity.ts';
import { FUNCTION_NAME_METADATA } from '../../infra/constructs/service-function.ts';
import { sharedSynth, type Resource, type Synthesized } from './synth.ts';

/**
 * The 10-execution account, counted (issue 33, item 6): infra/capacity.ts counts what the
 * background may hold at once, and the template holds nothing it does not count.
 */
let synth: Synthesized;
beforeAll(async () => {
  synth = await sharedSynth();
}, 600_000);

const nameOf = (fnRef: unknown): string => {
  const id = typeof fnRef === 'object' && fnRef && 'Ref' in fnRef ? String((fnRef as { Ref: string }).Ref) : String((fnRef as { 'Fn::GetAtt': [string] })['Fn::GetAtt'][0]);
  const fn = synth.resources('AWS::Lambda::Function').find(([fid]) => fid === id)![1];
  return fn.Metadata?.[FUNCTION_NAME_METADATA] as string;
};

describe('what the background may hold at once', () => {
  it('counts every stream consumer of the template at one execution per shard', () => {
    const streams = synth.resources('AWS::Lambda::EventSourceMapping').filter(([, m]) => JSON.stringify(m.Properties.EventSourceArn).includes('StreamArn'));
    expect(streams.length).toBeGreaterThan(0);
    const counted = capacityPlan(10).background.filter((b) => b.kind === 'stream consumer');
    expect(streams.map(([, m]) => nameOf(m.Properties.FunctionName)).sort()).toEqual(counted.map((b) => b.name).sort());
    for (const [id, m] of streams) expect(m.Properties.ParallelizationFactor ?? 1, id).toBe(1);
    for (const b of counted) expect(b.executions).toBe(NEW_TABLE_STREAM_SHARDS);
  });

  it('counts every queue worker at its mapping’s maximum concurrency', () => {
    const queues = synth.resources('AWS::Lambda::EventSourceMapping').filter(([, m]) => !JSON.stringify(m.Properties.EventSourceArn).includes('StreamArn'));
    const counted = new Map(capacityPlan(10).background.filter((b) => b.kind === 'queue worker').map((b) => [b.name, b.executions]));
    expect(new Map(queues.map(([, m]) => [nameOf(m.Properties.FunctionName), m.Properties.ScalingConfig.MaximumConcurrency]))).toEqual(counted);
  });

  it('counts every scheduled function once, each finished before its next run', () => {
    const rules = synth.resources('AWS::Events::Rule').filter(([, r]) => r.Properties.ScheduleExpression);
    const scheduled = rules.flatMap(([, r]) => (r.Properties.Targets as { Arn: unknown }[]).map((t) => ({ name: nameOf(t.Arn), rate: r.Properties.ScheduleExpression as string })));
    const rotations = synth.resources('AWS::SecretsManager::RotationSchedule').map(([, r]) => nameOf(r.Properties.RotationLambdaARN));
    expect([...scheduled.map((s) => s.name), ...rotations].sort()).toEqual([...SCHEDULED_FUNCTIONS].sort());
    const seconds = { minute: 60, minutes: 60, hour: 3600, hours: 3600 } as Record<string, number>;
    for (const { name, rate } of scheduled) {
      const [, n, unit] = /^rate\((\d+) (\w+)\)$/.exec(rate)!;
      const fn = synth.resources('AWS::Lambda::Function').find(([, f]) => f.Metadata?.[FUNCTION_NAME_METADATA] === name)![1] as Resource;
      expect(fn.Properties.Timeout, name).toBeLessThan(Number(n) * seconds[unit!]!);
    }
  });

  it('leaves no function uncounted: every one is behind a route, or counted', () => {
    const background = new Set(capacityPlan(10).background.map((b) => b.name));
    const api = new Set(synth.resources('AWS::Lambda::Function').filter(([, f]) => f.Properties.Environment?.Variables?.OIDC_ISSUER).map(([, f]) => f.Metadata?.[FUNCTION_NAME_METADATA]));
    const uncounted = synth.resources('AWS::Lambda::Function').map(([, f]) => f.Metadata?.[FUNCTION_NAME_METADATA] as string).filter((n) => !background.has(n) && !api.has(n));
    expect(uncounted).toEqual([]);
  });
});

describe('the API’s share', () => {
  it('cannot be kept on a new account of 10: the background alone may take 19', () => {
    const p = capacityPlan(10);
    expect([p.backgroundTotal, p.fits, p.quotaNeeded]).toEqual([19, false, 54]);
  });

  it('is kept from 54, and at 100 and 1,000 the API keeps 60 and 960', () => {
    const at54 = capacityPlan(54);
    expect(at54.fits).toBe(true);
    expect(at54.api).toBeGreaterThanOrEqual(Math.ceil(54 * API_SHARE));
    expect(capacityPlan(53).fits).toBe(false);
    expect([capacityPlan(100).api, capacityPlan(1000).api]).toEqual([60, 960]);
  });
});
