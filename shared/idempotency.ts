import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { seal, unseal } from './crypto/sealed-secret.ts';
import { ports } from './ports/registry.ts';
import { DAY_SECONDS, epochSeconds } from './clock.ts';
import { IdempotencyKeyReusedError } from './errors.ts';
import type { APIGatewayProxyStructuredResultV2 as ApiResult } from 'aws-lambda';
import { keys } from './table/keys.ts';
import { table, tableName } from './table/client.ts';
import type { Write } from './table/transaction.ts';

/** Keys are kept 24 hours (decisions 3); DynamoDB's TTL removes the record later, reads check it. */
export const IDEMPOTENCY_TTL_SECONDS = DAY_SECONDS;

export interface IdempotencyClaim {
  tenantId: string;
  operationId: string;
  key: string;
  fingerprint: string;
  /** The response carries a secret (a webhook signing secret): it is stored sealed, never plain. */
  sealResponse?: boolean;
  /** Top-level fields of the answer stored as null (the operation's `replayOmits`). */
  omitFields?: readonly string[];
}

/** The answer's body as its idempotency copy keeps it. */
const storedBody = (claim: IdempotencyClaim, body: string): string => {
  if (!claim.omitFields?.length || !body) return body;
  const parsed = JSON.parse(body) as Record<string, unknown>;
  for (const field of claim.omitFields) if (field in parsed) parsed[field] = null;
  return JSON.stringify(parsed);
};

interface StoredResponse {
  fingerprint: string;
  statusCode: number;
  body: string;
  sealed?: boolean;
  headers: Record<string, string>;
  expiresAt: number;
}

/**
 * The KMS encryption context of a sealed response. The function's role may use the key only
 * under exactly these keys (infra/constructs/webhook-pipeline.ts), and only this context lets it
 * Decrypt: it can open its own replay records, never a stored signing secret.
 */
export const RESPONSE_SEAL_CONTEXT_KEYS = ['tenantId', 'operationId', 'key'] as const;

export const responseSealContext = (claim: Pick<IdempotencyClaim, (typeof RESPONSE_SEAL_CONTEXT_KEYS)[number]>): Record<string, string> => ({
  tenantId: claim.tenantId,
  operationId: claim.operationId,
  key: claim.key,
});

/** The answer to a repeated request, raised from inside the commit when another request won. */
export class IdempotentReplay extends Error {
  constructor(readonly result: ApiResult) {
    super('idempotent replay');
  }
}

/** Object keys are sorted so that the same JSON sent with another key order is the same request. */
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
};

export const fingerprint = (method: string, path: string, body: unknown): string =>
  createHash('sha256').update(`${method} ${path}\n${canonical(body ?? null)}`).digest('base64url');

const replayOf = async (claim: IdempotencyClaim, stored: StoredResponse): Promise<ApiResult> => ({
  statusCode: stored.statusCode,
  headers: { ...stored.headers, 'idempotent-replayed': 'true' },
  body: stored.sealed ? await unseal(ports().keys, JSON.parse(stored.body), responseSealContext(claim)) : stored.body,
});

const resolve = (claim: IdempotencyClaim, stored: StoredResponse): Promise<ApiResult> => {
  if (stored.fingerprint !== claim.fingerprint) throw new IdempotencyKeyReusedError();
  return replayOf(claim, stored);
};

const live = (item: Record<string, unknown> | undefined, now: Date): StoredResponse | undefined =>
  item && (item.expiresAt as number) > epochSeconds(now) ? (item as unknown as StoredResponse) : undefined;

/** Looks for an earlier answer; returns it for a replay, throws 422 if the key was used otherwise. */
export const findReplay = async (claim: IdempotencyClaim, now: Date): Promise<ApiResult | undefined> => {
  const { Item } = await table().send(
    new GetCommand({ TableName: tableName(), Key: keys.idempotency(claim.tenantId, claim.operationId, claim.key), ConsistentRead: true }),
  );
  const stored = live(Item, now);
  return stored ? resolve(claim, stored) : undefined;
};

/** The record that joins the change's transaction; it fails if a live record already exists. */
export const idempotencyWrite = async (claim: IdempotencyClaim, result: ApiResult, now: Date): Promise<Write> => ({
  item: {
    Put: {
      TableName: tableName(),
      Item: {
        ...keys.idempotency(claim.tenantId, claim.operationId, claim.key),
        entity: 'idempotency',
        fingerprint: claim.fingerprint,
        statusCode: result.statusCode,
        ...(claim.sealResponse
          ? { sealed: true, body: JSON.stringify(await seal(ports().keys, storedBody(claim, result.body ?? ''), responseSealContext(claim))) }
          : { body: storedBody(claim, result.body ?? '') }),
        headers: result.headers ?? {},
        expiresAt: epochSeconds(now) + IDEMPOTENCY_TTL_SECONDS,
      },
      ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :now',
      ExpressionAttributeValues: { ':now': epochSeconds(now) },
    },
  },
  onConditionFailed: async (current) => {
    const stored = live(current, now);
    if (!stored) return new IdempotencyKeyReusedError();
    try {
      return new IdempotentReplay(await resolve(claim, stored));
    } catch (error) {
      return error as Error;
    }
  },
});
