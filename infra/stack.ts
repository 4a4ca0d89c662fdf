import { Annotations, CfnOutput, CrossStackReferences, ReferenceStrength, Stack, Token } from 'aws-cdk-lib';
import { RoutePreviews } from './constructs/route-previews.ts';
import { DEFAULT_ACCOUNT_CONCURRENCY, workerConcurrency } from './constructs/queue-capacity.ts';
import { OidcParameters } from './constructs/oidc-parameters.ts';
import type { StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { FunctionGroup } from '../functions/index.ts';
import type { ServiceFunction } from './constructs/service-function.ts';
import { functionGroups } from '../functions/index.ts';
import { Alarms } from './constructs/alarms.ts';
import { BillingProviderAccess, type BillingProviderSettings } from './constructs/billing-provider.ts';
import { ApiFunctions } from './constructs/api-functions.ts';
import { DataTable } from './constructs/data-table.ts';
import { Edge } from './constructs/edge.ts';
import { EdgeAclStack, EdgeLogsStack } from './edge-stacks.ts';
import { InvoiceReconciler } from './constructs/invoice-reconciler.ts';
import { ServiceHttpApi } from './constructs/http-api.ts';
import { OriginSecret } from './constructs/origin-secret.ts';
import { TrackingEdge } from './constructs/tracking-edge.ts';
import { TrackingProjection } from './constructs/tracking-projection.ts';
import { WebhookPipeline } from './constructs/webhook-pipeline.ts';
import { WebhookQueue } from './constructs/webhook-queue.ts';
import { RecordImports } from './constructs/record-imports.ts';
import { DispatchGuideIssuing } from './constructs/dispatch-guides.ts';
import { deploymentOf, stackNames } from './deployment.ts';

/** Synth accepts these; a deployment with them fails before it creates anything (OidcParameters). */
export const PLACEHOLDER_OIDC_ISSUER = 'https://issuer.example.invalid/';
export const PLACEHOLDER_OIDC_AUDIENCE = 'delivery-ops-api';
export const DEFAULT_RATE_LIMIT_PER_IP = 600;
/** Concurrent executions the public tracking function may use at most (issue 7, item 2). */
export const DEFAULT_TRACKING_CONCURRENCY = 50;
/**
 * Lambda refuses a reservation that leaves fewer than this many of the account's concurrent
 * executions unreserved, and CloudFormation then fails the deploy.
 */
export const UNRESERVED_CONCURRENCY_MINIMUM = 100;
export { DEFAULT_ACCOUNT_CONCURRENCY };

/** The concurrency the stack reserves when the account's allows it (tracking and the three queue workers). */
export const concurrencyReservations = (
  trackingConcurrency = DEFAULT_TRACKING_CONCURRENCY,
  groups: readonly FunctionGroup[] = functionGroups,
  accountConcurrency = DEFAULT_ACCOUNT_CONCURRENCY,
): number => {
  const workers = workerConcurrency(accountConcurrency);
  return (
    trackingConcurrency +
    workers.webhooks +
    (groups.some((g) => g.name === 'integrations') ? workers.imports : 0) +
    (groups.some((g) => g.name === 'routing') ? workers.previews : 0)
  );
};

/** Lambda refuses a reservation that leaves fewer than UNRESERVED_CONCURRENCY_MINIMUM unreserved. */
export const reservationsFit = (accountConcurrency: number, reservations: number): boolean => accountConcurrency - reservations >= UNRESERVED_CONCURRENCY_MINIMUM;

/** Every value may also come from the CDK context key of the same name (`-c oidcIssuer=...`). */
export interface DeliveryOpsStackProps extends StackProps {
  oidcIssuer?: string;
  oidcAudience?: string;
  /** The issuer enforces two-step verification for everyone. @default false */
  oidcMfaEnforced?: boolean;
  /** Requests per client address per minute before WAF answers 429. @default 600 */
  rateLimitPerIp?: number;
  /**
   * Reserved concurrency of the public tracking function: a flood of link openings cannot take
   * the account's concurrency from the rest of the API. @default 50
   */
  trackingConcurrency?: number;
  /**
   * The account's Lambda concurrency in the stack's region (Service Quotas, "Concurrent
   * executions", less what other functions of the account reserve); `npm run deploy` writes the
   * real figure into deploy.settings.json. The reservations (tracking, webhook worker, import
   * worker, preview worker) are made only when it leaves UNRESERVED_CONCURRENCY_MINIMUM after
   * them; otherwise none is, and the queues' maximum concurrency still bounds the workers.
   * @default 10 (DEFAULT_ACCOUNT_CONCURRENCY): no reservations
   */
  accountConcurrency?: number;
  /**
   * DynamoDB deletion protection of the table. Off for the first deploy only, so that a failed
   * create can remove the table it made (docs/cloud-stack.md, First deploy). @default true
   */
  tableDeletionProtection?: boolean;
  /** Receives the alarm notifications. @default no subscription */
  alarmEmail?: string;
  /** The billing provider's settings (context keys providerApiUrl, providerOauthUrl, providerAppId,
   * providerRedirectUri, providerUserTokenSecretArn, publicBaseUrl). @default none: 503 provider_not_configured */
  billingProvider?: BillingProviderSettings;
  /** @default the function manifest */
  groups?: readonly FunctionGroup[];
}

export class DeliveryOpsStack extends Stack {
  readonly data: DataTable;
  readonly functions: ApiFunctions;
  readonly httpApi: ServiceHttpApi;
  readonly edge: Edge;
  readonly originSecret: OriginSecret;
  readonly webhooks: WebhookQueue;
  readonly webhookPipeline: WebhookPipeline;
  readonly invoiceReconciler: InvoiceReconciler;
  readonly tracking: TrackingProjection;
  readonly imports?: RecordImports;
  readonly previews?: RoutePreviews;
  readonly alarms: Alarms;
  /** Whether the functions' concurrency is reserved (see accountConcurrency). */
  readonly concurrencyReserved: boolean;
  /** The account's Lambda concurrency the stack was built for (props or context, default 10). */
  readonly accountConcurrency: number;
  /** us-east-1: the CloudFront web ACL, deployed before this stack. */
  readonly edgeAcl: EdgeAclStack;
  /** us-east-1: the distribution's access-log delivery, deployed after this stack. */
  readonly edgeLogs: EdgeLogsStack;

  /**
   * The API's stack in the region of `props.env` (any), with its two us-east-1 companions made
   * beside it in `scope` (`<id>Edge`, `<id>EdgeLogs`; infra/edge-stacks.ts): `cdk deploy --all`
   * deploys the three in order. The region must be concrete: the references between them cross
   * regions (an SSM parameter in the reader's region, written by the producer's stack).
   */
  constructor(scope: Construct, id: string, props: DeliveryOpsStackProps = {}) {
    super(scope, id, { crossRegionReferences: true, ...props });
    // The deployment (decisions 20) names the three stacks; the context names the deployment.
    const names = stackNames(deploymentOf(this));
    if (id !== names.app) throw new Error(`the API stack of deployment ${deploymentOf(this)} is ${names.app}, not ${id}`);
    // Strong, CDK's default said aloud: a referenced value (the ACL's ARN) cannot vanish under a reader.
    CrossStackReferences.of(this).consume(ReferenceStrength.STRONG);

    const setting = (key: keyof DeliveryOpsStackProps): unknown => props[key] ?? this.node.tryGetContext(key);
    const oidcIssuer = String(setting('oidcIssuer') ?? PLACEHOLDER_OIDC_ISSUER);
    const oidcAudience = String(setting('oidcAudience') ?? PLACEHOLDER_OIDC_AUDIENCE);
    const mfa = setting('oidcMfaEnforced');
    const oidcMfaEnforced = mfa === true || mfa === 'true' || mfa === '1';
    const rateLimitPerIp = Number(setting('rateLimitPerIp') ?? DEFAULT_RATE_LIMIT_PER_IP);
    if (!Number.isInteger(rateLimitPerIp) || rateLimitPerIp < 10) throw new Error('rateLimitPerIp must be an integer of at least 10 (the WAF minimum)');
    const trackingConcurrency = Number(setting('trackingConcurrency') ?? DEFAULT_TRACKING_CONCURRENCY);
    if (!Number.isInteger(trackingConcurrency) || trackingConcurrency < 1) throw new Error('trackingConcurrency must be a positive integer');
    const alarmEmail = (setting('alarmEmail') as string | undefined) || undefined;
    if (!alarmEmail) {
      Annotations.of(this).addWarningV2('delivery-ops:no-alarm-email', 'No alarmEmail: the alarms go to a topic nobody is subscribed to (deploy.settings.json or -c alarmEmail=<address>).');
    }
    const groups = props.groups ?? functionGroups;
    const quota = Number(setting('accountConcurrency') ?? DEFAULT_ACCOUNT_CONCURRENCY);
    if (!Number.isInteger(quota) || quota < 1) throw new Error('accountConcurrency must be a positive integer (the account\'s Lambda concurrent executions)');
    this.accountConcurrency = quota;
    const workers = workerConcurrency(quota);
    const reservations = concurrencyReservations(trackingConcurrency, groups, quota);
    this.concurrencyReserved = reservationsFit(quota, reservations);
    if (!this.concurrencyReserved) {
      Annotations.of(this).addWarningV2(
        'delivery-ops:concurrency-unreserved',
        `No reserved concurrency: the reservations (${reservations}) need a Lambda concurrency quota of at least ${reservations + UNRESERVED_CONCURRENCY_MINIMUM}` +
          ` (accountConcurrency, ${quota}; npm run deploy writes the real one). The queues' maximum concurrency still bounds the workers.`,
      );
    }

    // The issuer and audience are stack parameters with these values as defaults; a rule refuses
    // the placeholders before CloudFormation creates anything, while synth still works without them.
    const oidc = new OidcParameters(this, 'Oidc', {
      issuer: oidcIssuer,
      audience: oidcAudience,
      placeholders: { issuer: PLACEHOLDER_OIDC_ISSUER, audience: PLACEHOLDER_OIDC_AUDIENCE },
    });

    const protection = setting('tableDeletionProtection');
    this.data = new DataTable(this, 'Data', { deletionProtection: !(protection === false || protection === 'false' || protection === '0') });
    this.functions = new ApiFunctions(this, 'Functions', {
      groups,
      data: this.data,
      oidc: { issuer: oidc.issuer, audience: oidc.audience, mfaEnforced: oidcMfaEnforced },
      serviceName: 'delivery-ops',
      reservedConcurrency: this.concurrencyReserved ? { tracking: trackingConcurrency } : undefined,
    });
    this.httpApi = new ServiceHttpApi(this, 'Http', { groups, functions: this.functions });
    // Only requests through CloudFront (and so through WAF) carry the origin secret.
    this.originSecret = new OriginSecret(this, 'OriginSecret', { serviceName: 'delivery-ops' });
    for (const fn of this.functions.byGroup.values()) this.originSecret.grantCheck(fn.function);
    const account = props.env?.account;
    this.edgeAcl = new EdgeAclStack(scope, names.acl, { account, rateLimitPerIp, description: 'delivery-ops: the CloudFront web ACL (us-east-1 only)' });
    this.edge = new Edge(this, 'Edge', { apiDomainName: this.httpApi.domainName, webAclArn: this.edgeAcl.acl.webAcl.attrArn, originSecret: this.originSecret.secret });
    this.edgeLogs = new EdgeLogsStack(scope, names.logs, {
      account,
      distribution: this.edge.distribution,
      bucket: this.edge.logBucket,
      description: 'delivery-ops: CloudFront access-log delivery (us-east-1 only)',
    });
    // Its source's name is made in the edge logs stack; the same token resolves in either.
    this.edge.admitLogDelivery(this.edgeLogs.accessLogs.sourceName);
    this.originSecret.rotateOn(this.edge.distribution, this.edgeAcl.acl.webAcl.attrArn);
    new TrackingEdge(this, 'TrackingEdge', { edge: this.edge });
    this.webhooks = new WebhookQueue(this, 'Webhooks');
    this.webhookPipeline = new WebhookPipeline(this, 'WebhookPipeline', {
      data: this.data,
      transport: this.webhooks,
      apiFunction: this.functions.byGroup.get('webhooks'),
      serviceName: 'delivery-ops',
      workerConcurrency: workers.webhooks,
      reserveConcurrency: this.concurrencyReserved,
    });
    this.invoiceReconciler = new InvoiceReconciler(this, 'InvoiceReconciler', { data: this.data, serviceName: 'delivery-ops' });
    const integrations = this.functions.byGroup.get('integrations');
    if (integrations) this.imports = new RecordImports(this, 'Imports', { data: this.data, apiFunction: integrations, serviceName: 'delivery-ops', concurrency: workers.imports, reserveConcurrency: this.concurrencyReserved });
    const field = this.functions.byGroup.get('field');
    if (this.imports && field) new DispatchGuideIssuing(this, 'DispatchGuides', { imports: this.imports, fieldFunction: field });
    const routing = this.functions.byGroup.get('routing');
    if (routing) this.previews = new RoutePreviews(this, 'Previews', { data: this.data, apiFunction: routing, serviceName: 'delivery-ops', concurrency: workers.previews, reserveConcurrency: this.concurrencyReserved });
    const context = (key: string): string | undefined => (this.node.tryGetContext(key) as string | undefined) || undefined;
    const providerSettings = props.billingProvider ?? {
      apiUrl: context('providerApiUrl'),
      oauthUrl: context('providerOauthUrl'),
      appId: context('providerAppId'),
      redirectUri: context('providerRedirectUri'),
      userTokenSecretArn: context('providerUserTokenSecretArn'),
      publicBaseUrl: context('publicBaseUrl'),
    };
    // Every function that reaches the provider: connections, invoicing and its reconciler, the import worker,
    // and field (an internal transfer's destinationOfficeId is checked against the connection's live offices, decisions 16).
    const providerUsers: Array<[string, ServiceFunction | undefined, boolean]> = [
      ['BillingProvider', this.functions.byGroup.get('integrations'), true],
      ['InvoicingBillingProvider', this.functions.byGroup.get('invoicing'), false],
      ['FieldBillingProvider', this.functions.byGroup.get('field'), false],
      ['ReconcilerBillingProvider', this.invoiceReconciler.fn, false],
      ['ImportWorkerBillingProvider', this.imports?.worker, false],
    ];
    for (const [id, fn, connects] of providerUsers) {
      if (!fn) continue;
      new BillingProviderAccess(this, id, {
        fn,
        connects,
        key: this.webhookPipeline.key,
        portsEnvironment: this.webhookPipeline.portsEnvironment(this.webhooks),
        settings: providerSettings,
      });
    }
    this.tracking = new TrackingProjection(this, 'TrackingProjection', { data: this.data, serviceName: 'delivery-ops' });
    this.alarms = new Alarms(this, 'Alarms', {
      api: this.httpApi.api,
      functions: new Map([
        ...[...this.functions.byGroup].map(([name, fn]) => [name, fn.function] as const),
        ...this.webhookPipeline.functions,
        ['origin-secret-rotation', this.originSecret.rotation.function] as const,
        ['tracking-projection', this.tracking.projector.function] as const,
        ['invoice-reconciler', this.invoiceReconciler.fn.function] as const,
        ...(this.imports?.functions ?? []),
        ...(this.previews?.functions ?? []),
      ]),
      deadLetterQueues: new Map([
        ['WebhookDeadLetters', this.webhooks.deadLetterQueue],
        ['WebhookStreamFailures', this.webhookPipeline.streamFailures],
        ['TrackingStreamFailures', this.tracking.streamFailures],
        ...(this.imports ? [['ImportDeadLetters', this.imports.deadLetterQueue] as const] : []),
        ...(this.previews ? [['PreviewDeadLetters', this.previews.deadLetterQueue] as const] : []),
      ]),
      email: alarmEmail,
    });
    this.alarms.notify(this.webhookPipeline.attemptsBacklogAlarm);
    if (this.imports) this.alarms.notify(this.imports.backlogAlarm);
    if (this.previews) this.alarms.notify(this.previews.backlogAlarm);

    new CfnOutput(this, 'Url', { value: `https://${this.edge.distribution.distributionDomainName}`, description: 'Public base URL' });
    new CfnOutput(this, 'TableName', { value: this.data.table.tableName, description: 'TABLE_NAME for npm run admin' });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.alarms.topic.topicArn });
    new CfnOutput(this, 'OriginSecretArn', { value: this.originSecret.secret.secretArn, description: 'Rotate it (aws secretsmanager rotate-secret) after every deploy that creates or replaces the secret, the distribution, the web ACL or the rotation function (docs/security.md)' });
  }
}
