import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealedReplayOperations } from '../../functions/index.ts';
import { PROVIDER_CONTEXT, actionsOf, sharedSynth, type Resource, type Statement, type Synthesized } from './synth.ts';

// The run's shared synthesis with the billing provider configured (synth.ts, PROVIDER_CONTEXT).
const context = PROVIDER_CONTEXT;
const SECRET = context.providerUserTokenSecretArn;

let synth: Synthesized;
beforeAll(async () => {
  synth = await sharedSynth(context);
}, 180_000);
afterAll(() => synth?.dispose());

const logicalId = (construct: IConstruct): string => synth.logicalId(construct);
const statementsOf = (roleId: string): Statement[] => synth.statementsOf(roleId);
const actions = actionsOf;
const integrations = () => synth.stack.functions.byGroup.get('integrations')!;

describe('integrations function', () => {
  it('gets the provider settings from context and the user token only as a secret ARN', () => {
    const fn = (synth.template.toJSON().Resources as Record<string, Resource>)[logicalId(integrations().function)]!;
    const env = fn.Properties.Environment.Variables;
    expect(env).toMatchObject({
      PROVIDER_API_URL: 'https://api.bsale.io',
      PROVIDER_OAUTH_URL: 'https://oauth.bsale.io',
      PROVIDER_APP_ID: 'app-42',
      PROVIDER_REDIRECT_URI: 'https://app.example.cl/provider/callback',
      PROVIDER_USER_TOKEN_SECRET_ARN: SECRET,
      PUBLIC_BASE_URL: 'https://api.example.cl',
    });
    expect(env.PROVIDER_USER_TOKEN).toBeUndefined();
    for (const name of ['WEBHOOK_KMS_KEY_ID', 'WEBHOOK_QUEUE_URL']) expect(env[name]).toBeDefined();
    // Outside a VPC: the provider's public hosts are reachable without NAT.
    expect(fn.Properties.VpcConfig).toBeUndefined();
  });

  it('may read that one secret (beside the origin secret every API function reads) and use the key only under its two sealing contexts', () => {
    const statements = statementsOf(logicalId(integrations().role));
    const secretReads = statements.filter((s) => actions(s).includes('secretsmanager:GetSecretValue'));
    expect(secretReads).toHaveLength(2);
    expect(secretReads).toContainEqual(expect.objectContaining({ Resource: SECRET }));
    expect(secretReads).toContainEqual(expect.objectContaining({ Resource: { Ref: expect.stringMatching(/^OriginSecret/) } }));
    const kms = statements.filter((s) => actions(s).some((a) => a.startsWith('kms:')));
    expect(kms.map((s) => s.Condition!['ForAllValues:StringEquals']['kms:EncryptionContextKeys']).sort()).toEqual([
      ['tenantId', 'connectionId'],
      ['tenantId', 'operationId', 'key'],
    ]);
    for (const s of kms) {
      expect(actions(s).sort()).toEqual(['kms:Decrypt', 'kms:GenerateDataKey']);
      expect(s.Resource).toEqual({ 'Fn::GetAtt': [logicalId(synth.stack.webhookPipeline.key), 'Arn'] });
      const keys = s.Condition!['ForAllValues:StringEquals']['kms:EncryptionContextKeys'] as string[];
      expect(Object.keys(s.Condition!.Null).sort()).toEqual(keys.map((k) => `kms:EncryptionContext:${k}`).sort());
      // Replays only of its own sealed answers (the two authorization creates), not another function's.
      expect(s.Condition!.StringEquals).toEqual(keys.includes('operationId') ? { 'kms:EncryptionContext:operationId': sealedReplayOperations('integrations') } : undefined);
    }
    expect(sealedReplayOperations('integrations')).toHaveLength(2);
    expect(statements.some((s) => actions(s).some((a) => a.startsWith('scheduler:')))).toBe(false);
    // Its only queue use: queueing imports (test/infra/imports.test.ts).
    expect(statements.filter((s) => actions(s).some((a) => a.startsWith('sqs:')))).toEqual([
      expect.objectContaining({ Action: 'sqs:SendMessage', Resource: { 'Fn::GetAtt': [logicalId(synth.stack.imports!.queue), 'Arn'] } }),
    ]);
  });

  it('routes every integrations operation to it, and stays cdk-nag clean', () => {
    const routes = synth.resources('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey as string);
    for (const key of ['POST /v1/integrations/provider/authorizations', 'GET /v1/integrations/sandbox/authorize', 'PUT /v1/integrations/connections/{id}/issue-settings']) {
      expect(routes).toContain(key);
    }
    expect(synth.nagReport.success, JSON.stringify(synth.nagReport.violations, null, 1)).toBe(true);
  });

  it('gets the viewer’s address from CloudFront for the provider notices’ per-address limit', () => {
    const [, distribution] = synth.resources('AWS::CloudFront::Distribution')[0]!;
    const config = distribution.Properties.DistributionConfig;
    // AllViewerExceptHostHeader: every viewer header but Host, plus CloudFront's device and viewer
    // location headers, CloudFront-Viewer-Address among them. API Gateway's own source address is the edge's.
    expect(config.DefaultCacheBehavior.OriginRequestPolicyId).toBe('b689b0a8-53d0-40ab-baf2-68738e2966ac');
    const patterns = (config.CacheBehaviors ?? []).map((b: { PathPattern: string }) => b.PathPattern) as string[];
    expect(patterns.filter((p) => p.startsWith('/v1/integrations') || p === '/v1/*' || p === '*')).toEqual([]);
  });
});
