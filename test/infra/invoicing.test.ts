import type { IConstruct } from 'constructs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_CONTEXT, actionsOf, sharedSynth, type Resource, type Statement, type Synthesized } from './synth.ts';

const SECRET = PROVIDER_CONTEXT.providerUserTokenSecretArn;

let synth: Synthesized;
beforeAll(async () => {
  // The run's shared synthesis with the billing provider configured, the integrations file's too.
  synth = await sharedSynth(PROVIDER_CONTEXT);
}, 180_000);
afterAll(() => synth?.dispose());

const logicalId = (construct: IConstruct): string => synth.logicalId(construct);
const statementsOf = (roleId: string): Statement[] => synth.statementsOf(roleId);
const actions = actionsOf;

describe('invoicing in the cloud stack', () => {
  it('runs the reconciler every minute from an EventBridge rule, without async retries', () => {
    const fnId = logicalId(synth.stack.invoiceReconciler.fn.function);
    const rules = synth.resources('AWS::Events::Rule').filter(([, r]) => JSON.stringify(r.Properties.Targets).includes(fnId));
    expect(rules).toHaveLength(1);
    expect(rules[0]![1].Properties.ScheduleExpression).toBe('rate(1 minute)');
    expect(rules[0]![1].Properties.Targets[0].RetryPolicy).toMatchObject({ MaximumRetryAttempts: 0 });
  });

  it('lets the invoicing function and the reconciler reach the provider: settings, and the key only to open connection tokens', () => {
    for (const service of [synth.stack.functions.byGroup.get('invoicing')!, synth.stack.invoiceReconciler.fn]) {
      const fn = (synth.template.toJSON().Resources as Record<string, Resource>)[logicalId(service.function)]!;
      expect(fn.Properties.Environment.Variables).toMatchObject({ PROVIDER_API_URL: 'https://api.bsale.io', PROVIDER_USER_TOKEN_SECRET_ARN: SECRET });
      const statements = statementsOf(logicalId(service.role));
      // They open sealed connection tokens and nothing more: no integrator token, no sealing.
      const secretReads = statements.filter((s) => actions(s).includes('secretsmanager:GetSecretValue'));
      expect(secretReads.filter((s) => s.Resource === SECRET)).toEqual([]);
      expect(statements.filter((s) => actions(s).includes('kms:GenerateDataKey'))).toEqual([]);
      const contexts = statements.filter((s) => actions(s).includes('kms:Decrypt')).map((s) => s.Condition!['ForAllValues:StringEquals']['kms:EncryptionContextKeys']);
      expect(contexts).toContainEqual(['tenantId', 'connectionId']);
    }
  });

  it('routes every invoice-intent operation and stays cdk-nag clean', () => {
    const routes = synth.resources('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties.RouteKey as string);
    for (const suffix of ['', '/{id}', '/{id}/lines', '/{id}/review', '/{id}/approve', '/{id}/issue', '/{id}/reconcile', '/{id}/cancel']) {
      expect(routes.some((key) => key.endsWith(`/v1/customer-finance/invoice-intents${suffix}`))).toBe(true);
    }
    expect(synth.nagReport.success, JSON.stringify(synth.nagReport.violations, null, 1)).toBe(true);
  });
});
