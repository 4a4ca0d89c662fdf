import { CloudFrontClient, GetDistributionConfigCommand, UpdateDistributionCommand } from '@aws-sdk/client-cloudfront';
import {
  DescribeSecretCommand,
  GetRandomPasswordCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import type { SecretsManagerRotationEvent } from 'aws-lambda';
import { ORIGIN_VERIFY_HEADER } from '../../shared/http/edge-headers.ts';
import { REFRESH_AFTER_MISMATCH_MS } from '../../shared/http/middlewares/origin-verify.ts';
import { logger } from '../../shared/logger.ts';
import { awsClientOptions } from '../../shared/ports/client-options.ts';

/**
 * Rotation of the CloudFront origin secret (issue 7, item 2), after AWS's "CloudFront origin
 * verify" sample (aws-samples/amazon-cloudfront-waf-secretsmanager). The sample lets its origin
 * accept AWSPENDING and moves CloudFront in setSecret; our origin accepts AWSCURRENT and
 * AWSPREVIOUS only, so the order is: promote the new value first, wait until every container's
 * cached pair has become refreshable, then move CloudFront. Edges that still send the old value
 * send AWSPREVIOUS, which passes.
 */
export interface RotationDeps {
  secretsManager: SecretsManagerClient;
  cloudFront: CloudFrontClient;
  distributionId: string;
  /** How long to wait between the promotion and the CloudFront update. */
  settleMs: number;
  wait(ms: number): Promise<void>;
}

/** Longer than the origin check's refresh after a mismatch, so no container refuses the new value. */
export const SETTLE_MS = REFRESH_AFTER_MISMATCH_MS + 5_000;

/** 64 letters and digits (about 380 bits): a valid header value as it is. */
const newOriginSecret = async (deps: RotationDeps): Promise<string> => {
  const out = await deps.secretsManager.send(new GetRandomPasswordCommand({ PasswordLength: 64, ExcludePunctuation: true, IncludeSpace: false, RequireEachIncludedType: true }));
  if (!out.RandomPassword) throw new RotationError('GetRandomPassword returned no password');
  return out.RandomPassword;
};

class RotationError extends Error {
  override readonly name = 'RotationError';
}

export const rotateOriginSecret = async (event: SecretsManagerRotationEvent, deps: RotationDeps): Promise<void> => {
  const { SecretId: secretId, ClientRequestToken: token, Step: step } = event;
  const described = await deps.secretsManager.send(new DescribeSecretCommand({ SecretId: secretId }));
  if (!described.RotationEnabled) throw new RotationError(`Secret ${secretId} is not enabled for rotation`);
  const stages = described.VersionIdsToStages?.[token];
  if (!stages) throw new RotationError(`Version ${token} of ${secretId} has no stage`);
  // finishSecret runs again on a version already current: a previous attempt may have promoted
  // it and then failed to update CloudFront, which must still happen.
  if (stages.includes('AWSCURRENT') && step !== 'finishSecret') return;
  if (!stages.includes('AWSCURRENT') && !stages.includes('AWSPENDING')) throw new RotationError(`Version ${token} of ${secretId} is not AWSPENDING`);
  logger.info('origin secret rotation', { step, version: token });

  switch (step) {
    case 'createSecret':
      return createSecret(secretId, token, deps);
    case 'setSecret':
      // Nothing to set yet: CloudFront must not send a value the origin does not accept.
      return;
    case 'testSecret':
      return testSecret(secretId, token, deps);
    case 'finishSecret':
      return finishSecret(secretId, token, described.VersionIdsToStages ?? {}, deps);
    default:
      throw new RotationError(`Unknown rotation step ${step as string}`);
  }
};

const pendingValue = async (secretId: string, token: string, deps: RotationDeps): Promise<string | undefined> => {
  try {
    const out = await deps.secretsManager.send(new GetSecretValueCommand({ SecretId: secretId, VersionId: token, VersionStage: 'AWSPENDING' }));
    return out.SecretString;
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return undefined;
    throw error;
  }
};

const createSecret = async (secretId: string, token: string, deps: RotationDeps): Promise<void> => {
  // A retried createSecret keeps the value it made the first time.
  if ((await pendingValue(secretId, token, deps)) !== undefined) return;
  await deps.secretsManager.send(new PutSecretValueCommand({ SecretId: secretId, ClientRequestToken: token, SecretString: await newOriginSecret(deps), VersionStages: ['AWSPENDING'] }));
};

const currentValue = async (secretId: string, deps: RotationDeps): Promise<string | undefined> =>
  (await deps.secretsManager.send(new GetSecretValueCommand({ SecretId: secretId, VersionStage: 'AWSCURRENT' }))).SecretString;

/**
 * CloudFront sends the value as a header: it must be long and header-safe, and the distribution
 * must carry the header the rotation will change. Secrets Manager also runs this step alone when
 * rotation is set up without rotating at once, as the stack's schedule is (at deploy): it labels
 * a version AWSPENDING, runs testSecret and removes the version. No createSecret ran then, so the
 * version may hold no value; the current one, which CloudFront sends, is tested instead. A setup
 * error so fails the deploy rather than the first rotation a month later.
 */
const testSecret = async (secretId: string, token: string, deps: RotationDeps): Promise<void> => {
  const value = (await pendingValue(secretId, token, deps)) ?? (await currentValue(secretId, deps));
  if (!value || !/^[A-Za-z0-9_-]{32,256}$/.test(value)) throw new RotationError('The pending origin secret is not 32 or more header-safe characters');
  await originHeaders(deps);
};

const finishSecret = async (secretId: string, token: string, versions: Record<string, string[]>, deps: RotationDeps): Promise<void> => {
  const current = Object.entries(versions).find(([, stages]) => stages.includes('AWSCURRENT'))?.[0];
  if (current !== token) {
    // Secrets Manager moves AWSPREVIOUS to the version that loses AWSCURRENT.
    await deps.secretsManager.send(new UpdateSecretVersionStageCommand({ SecretId: secretId, VersionStage: 'AWSCURRENT', MoveToVersionId: token, RemoveFromVersionId: current }));
    await deps.wait(deps.settleMs);
  }
  const out = await deps.secretsManager.send(new GetSecretValueCommand({ SecretId: secretId, VersionId: token }));
  if (!out.SecretString) throw new RotationError(`Version ${token} of ${secretId} has no value`);
  await setDistributionHeader(out.SecretString, deps);
};

/** The distribution's configuration and its origin headers; a distribution without one is a setup error. */
const originHeaders = async (deps: RotationDeps) => {
  const { DistributionConfig: config, ETag } = await deps.cloudFront.send(new GetDistributionConfigCommand({ Id: deps.distributionId }));
  const headers = (config?.Origins?.Items ?? [])
    .flatMap((origin) => origin.CustomHeaders?.Items ?? [])
    .filter((h) => h.HeaderName?.toLowerCase() === ORIGIN_VERIFY_HEADER);
  if (!config || headers.length === 0) throw new RotationError(`Distribution ${deps.distributionId} has no ${ORIGIN_VERIFY_HEADER} origin header`);
  return { config, ETag, headers };
};

/**
 * Sets the origin header on every origin that has it. The configuration goes back whole, web ACL
 * included: CloudFront then checks that the caller may read that web ACL (wafv2:GetWebACL,
 * granted in infra/constructs/origin-secret.ts).
 */
const setDistributionHeader = async (value: string, deps: RotationDeps): Promise<void> => {
  const { config, ETag, headers } = await originHeaders(deps);
  if (headers.every((h) => h.HeaderValue === value)) return;
  for (const h of headers) h.HeaderValue = value;
  await deps.cloudFront.send(new UpdateDistributionCommand({ Id: deps.distributionId, IfMatch: ETag, DistributionConfig: config }));
  logger.info('origin secret sent by CloudFront from now on', { distributionId: deps.distributionId });
};

/**
 * The rotation's clients give up on a silent endpoint well inside the function's 60 s, so Secrets
 * Manager sees the step fail and calls it again, instead of the Lambda timing out mid-step.
 * CloudFront's control plane gets 10 s a request: UpdateDistribution can take seconds.
 */
export const rotationClients = (overrides: { endpoint?: string; region?: string; credentials?: { accessKeyId: string; secretAccessKey: string }; maxAttempts?: number } = {}) => ({
  secretsManager: new SecretsManagerClient({ ...awsClientOptions(), ...overrides }),
  cloudFront: new CloudFrontClient({ ...awsClientOptions({ requestTimeoutMs: 10_000 }), ...overrides }),
});

const { secretsManager, cloudFront } = rotationClients();

export const handler = (event: SecretsManagerRotationEvent): Promise<void> =>
  rotateOriginSecret(event, {
    secretsManager,
    cloudFront,
    distributionId: process.env.DISTRIBUTION_ID ?? '',
    settleMs: SETTLE_MS,
    wait: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  });
