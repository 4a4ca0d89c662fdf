import { Annotations } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { sealedReplayOperations } from '../../functions/index.ts';
import { allowKeyUse } from './webhook-pipeline.ts';
import type { ServiceFunction } from './service-function.ts';

/** provider-chile.md's deployment settings, as CDK context (the token only by its secret's ARN). */
export interface BillingProviderSettings {
  apiUrl?: string;
  oauthUrl?: string;
  appId?: string;
  redirectUri?: string;
  /** Full ARN of the Secrets Manager secret holding PROVIDER_USER_TOKEN (a plain string). */
  userTokenSecretArn?: string;
  /** The service's public address, for the sandbox's authorizeUrl. */
  publicBaseUrl?: string;
}

export interface BillingProviderAccessProps {
  /** The integrations endpoint group's function. */
  fn: ServiceFunction;
  /** The key that wraps sealed secrets' data keys (the webhook pipeline's). */
  key: IKey;
  /** What `ports()` reads (shared/ports/registry.ts): the function seals through it. */
  portsEnvironment: Record<string, string>;
  settings: BillingProviderSettings;
  /**
   * Whether the function connects companies (exchanges codes with the integrator's token, seals
   * access tokens and replays answers that reveal binding secrets). Invoicing only opens the
   * sealed tokens. @default true
   */
  connects?: boolean;
}

/**
 * The encryption contexts the integrations function seals under: the provider token
 * (functions/integrations/connection-record.ts) and the idempotent replay of an authorization,
 * whose answer holds the binding secret (shared/idempotency.ts).
 */
export const TOKEN_CONTEXT_KEYS = ['tenantId', 'connectionId'];
export const REPLAY_CONTEXT_KEYS = ['tenantId', 'operationId', 'key'];

/**
 * What the integrations function needs to reach the billing provider: the PROVIDER_* settings,
 * read access to the one secret holding the integrator's token, and the key for sealing, each
 * use limited to its encryption context. The provider's hosts are public HTTPS: the function runs
 * outside a VPC, so they are reachable with no NAT or endpoint to add.
 */
export class BillingProviderAccess extends Construct {
  constructor(scope: Construct, id: string, props: BillingProviderAccessProps) {
    super(scope, id);
    const { fn, key, settings } = props;
    const env: Record<string, string | undefined> = {
      ...props.portsEnvironment,
      PROVIDER_API_URL: settings.apiUrl,
      PROVIDER_OAUTH_URL: settings.oauthUrl,
      PROVIDER_APP_ID: settings.appId,
      PROVIDER_REDIRECT_URI: settings.redirectUri,
      PROVIDER_USER_TOKEN_SECRET_ARN: settings.userTokenSecretArn,
      PUBLIC_BASE_URL: settings.publicBaseUrl,
    };
    for (const [name, value] of Object.entries(env)) if (value) fn.function.addEnvironment(name, value);

    const missing = (['apiUrl', 'oauthUrl', 'appId', 'redirectUri', 'userTokenSecretArn'] as const).filter((k) => !settings[k]);
    if (missing.length > 0) {
      Annotations.of(this).addInfoV2(
        'delivery-ops:provider-not-configured',
        `Billing provider settings missing (${missing.join(', ')}): the provider routes answer 503 provider_not_configured; the sandbox works.`,
      );
    }
    const connects = props.connects ?? true;
    if (settings.userTokenSecretArn && connects) {
      fn.role.addToPrincipalPolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [settings.userTokenSecretArn] }));
    }
    // Replays only under the function's own sealed operations: not another function's replays.
    const replays = sealedReplayOperations(fn.name);
    const contexts: [string[], Record<string, unknown>][] = [[TOKEN_CONTEXT_KEYS, {}]];
    if (connects && replays.length > 0) contexts.push([REPLAY_CONTEXT_KEYS, { StringEquals: { 'kms:EncryptionContext:operationId': replays } }]);
    for (const [contextKeys, more] of contexts) {
      allowKeyUse(
        key,
        fn.role,
        new PolicyStatement({
          actions: connects ? ['kms:GenerateDataKey', 'kms:Decrypt'] : ['kms:Decrypt'],
          resources: [key.keyArn],
          conditions: {
            'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': contextKeys },
            Null: Object.fromEntries(contextKeys.map((k) => [`kms:EncryptionContext:${k}`, 'false'])),
            ...more,
          },
        }),
      );
    }
  }
}
