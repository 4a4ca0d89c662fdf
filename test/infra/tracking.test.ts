import type { CfnElement } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRACKED_ENTITIES } from '../../functions/tracking/tracked-entities.ts';
import { sharedSynth, type Synthesized } from './synth.ts';

let synth: Synthesized;
beforeAll(async () => {
  synth = await sharedSynth();
}, 180_000);
afterAll(() => synth?.dispose());

const logicalId = (construct: IConstruct): string =>
  synth.stack.resolve(synth.stack.getLogicalId((construct.node.defaultChild ?? construct) as CfnElement)) as string;

describe('tracking projection', () => {
  it('is fed by the table stream, only with the item kinds that move a view, with bounded retries', () => {
    const fnId = logicalId(synth.stack.tracking.projector.function);
    const mappings = synth.resources('AWS::Lambda::EventSourceMapping').filter(([, m]) => m.Properties.FunctionName.Ref === fnId);
    expect(mappings).toHaveLength(1);
    const mapping = mappings[0][1].Properties;
    expect(JSON.stringify(mapping.EventSourceArn)).toContain('StreamArn');
    expect(mapping).toMatchObject({ StartingPosition: 'TRIM_HORIZON', BisectBatchOnFunctionError: true, MaximumRetryAttempts: 10 });
    expect(mapping.DestinationConfig.OnFailure.Destination).toBeDefined();
    const patterns = mapping.FilterCriteria.Filters.map((f: { Pattern: string }) => JSON.parse(f.Pattern));
    expect(patterns[0].dynamodb.NewImage.entity.S).toEqual(TRACKED_ENTITIES);
    // A guide's folio shows on the page: its changes must pass the filter as they do locally.
    expect(patterns[0].dynamodb.NewImage.entity.S).toContain('dispatch-guide');
    expect(patterns[1].dynamodb.OldImage.entity.S).toEqual(TRACKED_ENTITIES);
    expect(patterns[1]).toMatchObject({ eventName: ['REMOVE'] });
  });

  it('has its failures and errors alarmed, and cdk-nag stays clean', () => {
    const alarms = synth.resources('AWS::CloudWatch::Alarm').map(([, a]) => JSON.stringify(a.Properties));
    expect(alarms.some((a) => a.includes(logicalId(synth.stack.tracking.projector.function)) && a.includes('Errors'))).toBe(true);
    expect(alarms.some((a) => a.includes(logicalId(synth.stack.tracking.streamFailures)))).toBe(true);
    expect(synth.nagReport.success, JSON.stringify(synth.nagReport.violations, null, 1)).toBe(true);
  });
});

describe('rate limits at the edge', () => {
  it('answers a recipient’s page with an HTML 429 and every other path with problem+json, each with Retry-After', () => {
    const [[, acl]] = synth.edgeResources('AWS::WAFv2::WebACL');
    const rules = acl.Properties.Rules as { Name: string; Statement: any; Action: any }[];
    const page = rules.find((r) => r.Name === 'RatePerClientIpTrackingPage')!;
    const api = rules.find((r) => r.Name === 'RatePerClientIp')!;
    expect(page.Statement.RateBasedStatement.ScopeDownStatement.ByteMatchStatement).toMatchObject({ PositionalConstraint: 'STARTS_WITH', SearchString: '/t/' });
    expect(api.Statement.RateBasedStatement.ScopeDownStatement.NotStatement.Statement.ByteMatchStatement.SearchString).toBe('/t/');
    for (const rule of [page, api]) {
      expect(rule.Action.Block.CustomResponse.ResponseCode).toBe(429);
      expect(rule.Action.Block.CustomResponse.ResponseHeaders[0].Name).toBe('Retry-After');
    }
    const bodies = acl.Properties.CustomResponseBodies;
    expect(bodies[page.Action.Block.CustomResponse.CustomResponseBodyKey].ContentType).toBe('TEXT_HTML');
    expect(bodies[page.Action.Block.CustomResponse.CustomResponseBodyKey].Content).toContain('Demasiadas solicitudes');
    expect(bodies[api.Action.Block.CustomResponse.CustomResponseBodyKey].ContentType).toBe('APPLICATION_JSON');
  });
});
