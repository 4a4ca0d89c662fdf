import { GetSecretValueCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { awsClientOptions } from './client-options.ts';
import { wrapped } from './wrappers.ts';

declare module './wrappers.ts' {
  interface WrappablePorts {
    secrets: SecretsPort;
  }
}

/** A stage of a rotating secret, as Secrets Manager names them. */
export type SecretStage = 'AWSCURRENT' | 'AWSPREVIOUS';

/**
 * Reads secrets the deployment keeps outside the code (the CloudFront origin secret, the billing
 * provider's integrator token). `secretId` is what the cloud names: a Secrets Manager ARN.
 * Undefined means "no such secret or stage", never "could not ask": that throws.
 */
export interface SecretsPort {
  read(secretId: string, stage?: SecretStage, options?: ReadOptions): Promise<string | undefined>;
}

export interface ReadOptions {
  /** Accept a cached value no older than this (a caller that just saw a mismatch asks fresher). */
  maxAgeMs?: number;
}

/**
 * Secrets Manager, read once per container and stage and kept for `maxAgeMs`, so a rotation
 * reaches every warm container within that time without a call per request.
 */
export class SecretsManagerSecrets implements SecretsPort {
  private readonly client: SecretsManagerClient;
  private readonly maxAgeMs: number;
  private readonly cache = new Map<string, { value: Promise<string | undefined>; at: number }>();

  constructor(options: { client?: SecretsManagerClient; maxAgeMs?: number } = {}) {
    this.client =
      options.client ??
      new SecretsManagerClient(awsClientOptions());
    this.maxAgeMs = options.maxAgeMs ?? 5 * 60_000;
  }

  read(secretId: string, stage: SecretStage = 'AWSCURRENT', options: ReadOptions = {}): Promise<string | undefined> {
    const id = `${secretId}\n${stage}`;
    const hit = this.cache.get(id);
    if (hit && Date.now() - hit.at < Math.min(this.maxAgeMs, options.maxAgeMs ?? Infinity)) return hit.value;
    const value = this.fetch(secretId, stage);
    // A failed read is not kept: the next request asks again.
    value.catch(() => {
      if (this.cache.get(id)?.value === value) this.cache.delete(id);
    });
    this.cache.set(id, { value, at: Date.now() });
    return value;
  }

  private async fetch(secretId: string, stage: SecretStage): Promise<string | undefined> {
    try {
      const out = await this.client.send(new GetSecretValueCommand({ SecretId: secretId, VersionStage: stage }));
      return out.SecretString;
    } catch (error) {
      // A secret never rotated has no AWSPREVIOUS stage: that is an answer, not a failure.
      if (error instanceof ResourceNotFoundException) return undefined;
      throw error;
    }
  }

  destroy(): void {
    this.client.destroy();
  }
}

/** The local stack's and the tests' stand-in: values set in code, by secret id and stage. */
export class LocalSecrets implements SecretsPort {
  private readonly values = new Map<string, string>();

  set(secretId: string, value: string | undefined, stage: SecretStage = 'AWSCURRENT'): void {
    const id = `${secretId}\n${stage}`;
    if (value === undefined) this.values.delete(id);
    else this.values.set(id, value);
  }

  async read(secretId: string, stage: SecretStage = 'AWSCURRENT'): Promise<string | undefined> {
    return this.values.get(`${secretId}\n${stage}`);
  }
}

let current: SecretsPort | undefined;

/**
 * Module scope: one Secrets Manager client per container unless a stand-in was installed. Handed
 * out through the wrappers registered from outside (the test run records each read).
 */
export const secrets = (): SecretsPort => wrapped('secrets', (current ??= new SecretsManagerSecrets()));

/** The local stack and the tests install `LocalSecrets`; `undefined` goes back to the AWS adapter. */
export const setSecrets = (port: SecretsPort | undefined): void => {
  if (current instanceof SecretsManagerSecrets && current !== port) current.destroy();
  current = port;
};
