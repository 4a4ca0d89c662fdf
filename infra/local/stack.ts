import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { functionGroups } from '../../functions/index.ts';
import { streamConsumerGroups } from '../../functions/stream-consumers.ts';
import { invokedAs } from '../../shared/aws-calls/identity.ts';
import { resetTokenVerifier } from '../../shared/auth/token-verifier.ts';
import { resetLogger } from '../../shared/logger.ts';
import { resetTableClient } from '../../shared/table/client.ts';
import { outboxReplayRoute } from './outbox-replay-route.ts';
import { controlRoutes, type StackInfo } from './control-routes.ts';
import { ensureTable } from './create-table.ts';
import { fileCheckpoints } from './file-checkpoints.ts';
import { startDynamoDbLocal, type DynamoDbLocal } from './dynamodb-local.ts';
import { LocalGateway } from './gateway.ts';
import { startDevIssuer, type DevIssuer } from './oidc-issuer.ts';
import { trackingRateLimit } from './tracking-rate-limit.ts';
import { startLocalWebhooks, type LocalWebhooks, type WebhookMapping } from './webhooks.ts';
import { startLocalInvoiceReconciler, type LocalInvoiceReconciler } from './invoice-reconciler.ts';
import { startLocalImports, type LocalImports } from './imports.ts';
import { startLocalPreviews, type LocalPreviews } from './previews.ts';
import { memoryCheckpoints, StreamReader, type Checkpoints, type StreamConsumer } from './stream-reader.ts';

export interface LocalStackOptions {
  /** 0 picks a free port. */
  port?: number;
  /** Where data, keys and stream positions persist; undefined keeps the data in memory. */
  dataDir?: string;
  /** Reuse a running DynamoDB Local (the tests start one for all files). */
  dynamoEndpoint?: string;
  tableName?: string;
  /** Settings the handlers read (WEBHOOK_*, TENANT_RATE_LIMIT_PER_MINUTE, ...). */
  env?: Record<string, string>;
  /** Extra stream consumers beside the project's own (tests observe the stream this way). */
  extraStreamConsumers?: Record<string, StreamConsumer>;
  onStreamError?: (consumer: string, error: unknown) => void;
  /** The webhook worker's mapping and the executions it may be throttled on (infra/local/webhooks.ts). */
  webhookMapping?: WebhookMapping;
}

export interface LocalStack extends StackInfo {
  port: number;
  issuer: string;
  devIssuer: DevIssuer;
  gateway: LocalGateway;
  webhooks: LocalWebhooks;
  invoiceReconciler: LocalInvoiceReconciler;
  imports: LocalImports;
  previews: LocalPreviews;
  stop(): Promise<void>;
}

/**
 * Settings this process set itself, so that a second start in the same process (tests, a
 * restart) tells them apart from ones the user gave and sets them anew.
 */
const selfSet = new Map<string, string>();
const userGiven = (name: string): boolean => {
  const value = process.env[name];
  return value !== undefined && value !== '' && value !== selfSet.get(name);
};
const ownSettings = (values: Record<string, string>): Record<string, string> => {
  for (const [name, value] of Object.entries(values)) selfSet.set(name, value);
  return values;
};

/**
 * The whole service on one machine: DynamoDB Local with the CDK table, the gateway calling the
 * real handlers, the stream read and handed to its consumers, and the dev OIDC issuer.
 */
export const startLocalStack = async (options: LocalStackOptions = {}): Promise<LocalStack> => {
  const tableName = options.tableName ?? 'delivery-ops';
  const inMemory = options.dataDir === undefined;
  // In memory, even the dev issuer's key is thrown away on stop.
  const runtimeDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'delivery-ops-'));
  mkdirSync(runtimeDir, { recursive: true });
  let dynamo: DynamoDbLocal | undefined;
  const dynamoEndpoint = options.dynamoEndpoint ?? (dynamo = await startDynamoDbLocal({ dataDir: options.dataDir && join(options.dataDir, 'dynamodb') })).endpoint;
  const { streamArn } = await ensureTable(dynamoEndpoint, tableName);

  let info!: StackInfo;
  let devIssuer!: DevIssuer;
  const gateway = new LocalGateway(functionGroups, [controlRoutes(() => info, () => devIssuer), outboxReplayRoute(), trackingRateLimit()]);
  const port = await gateway.listen(options.port ?? 3000);
  const baseUrl = `http://127.0.0.1:${port}`;
  devIssuer = await startDevIssuer({ dir: join(runtimeDir, 'oidc'), issuer: `${baseUrl}/dev-oidc` });

  // The handlers read these on first use, exactly as a Lambda reads its environment.
  Object.assign(process.env, {
    TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: dynamoEndpoint,
    AWS_REGION: process.env.AWS_REGION ?? 'us-east-1',
    // Data that outlives a crash must not lose an answered transaction; in memory nothing outlives it.
    DYNAMODB_LOCAL_DURABLE: inMemory ? '' : '1',
    // Tracking links point at this gateway, so the one in an order's answer opens as it is.
    ...(userGiven('PUBLIC_BASE_URL') ? {} : ownSettings({ PUBLIC_BASE_URL: baseUrl })),
    ...(userGiven('OIDC_ISSUER') ? {} : ownSettings({ OIDC_ISSUER: devIssuer.issuer, OIDC_AUDIENCE: devIssuer.audience, OIDC_JWKS_FILE: devIssuer.jwksFile })),
    ...(options.env ?? {}),
  });
  resetTableClient();
  resetTokenVerifier();
  resetLogger();
  info = { baseUrl, tableName, dynamoEndpoint, issuer: process.env.OIDC_ISSUER!, audience: process.env.OIDC_AUDIENCE!, inMemory };

  const webhooks = await startLocalWebhooks({ keyDir: runtimeDir, stateDir: inMemory ? undefined : runtimeDir, mapping: options.webhookMapping });
  const invoiceReconciler = await startLocalInvoiceReconciler();
  const imports = await startLocalImports({ stateDir: inMemory ? undefined : runtimeDir });
  const previews = await startLocalPreviews({ stateDir: inMemory ? undefined : runtimeDir });
  const consumers: Record<string, StreamConsumer> = { ...(options.extraStreamConsumers ?? {}) };
  // Each consumer is its own Lambda in the cloud (an event source mapping each).
  for (const group of streamConsumerGroups) consumers[group.name] = invokedAs(group.name, await group.load());
  const checkpoints = inMemory ? memoryCheckpoints() : fileCheckpoints(join(runtimeDir, 'stream-positions.json'));
  const reader = new StreamReader(dynamoEndpoint, streamArn, consumers, checkpoints, {
    onError: options.onStreamError ?? ((name, error) => console.error(`stream consumer ${name} failed:`, (error as Error).message)),
  });
  reader.start();

  return {
    ...info,
    port,
    devIssuer,
    gateway,
    webhooks,
    invoiceReconciler,
    imports,
    previews,
    stop: async () => {
      invoiceReconciler.stop();
      await gateway.close();
      await reader.stop();
      await imports.stop();
      await previews.stop();
      await webhooks.stop();
      resetTableClient();
      await dynamo?.stop();
      if (inMemory) rmSync(runtimeDir, { recursive: true, force: true });
    },
  };
};
