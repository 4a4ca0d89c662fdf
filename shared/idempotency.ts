import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { DAY_SECONDS, epochSeconds } from './clock.ts';
import { IdempotencyKeyReusedError } from './errors.ts';
import type { ApiResult } from './http/types.ts';
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
}

interface StoredResponse {
  fingerprint: string;
  statusCode: number;
  body: string;
  headers: Record<string, string>;
  expiresAt: number;
}

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

const replayOf = (stored: StoredResponse): ApiResult => ({
  statusCode: stored.statusCode,
  headers: { ...stored.headers, 'idempotent-replayed': 'true' },
  body: stored.body,
});

const resolve = (claim: IdempotencyClaim, stored: StoredResponse): ApiResult => {
  if (stored.fingerprint !== claim.fingerprint) throw new IdempotencyKeyReusedError();
  return replayOf(stored);
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
export const idempotencyWrite = (claim: IdempotencyClaim, result: ApiResult, now: Date): Write => ({
  item: {
    Put: {
      TableName: tableName(),
      Item: {
        ...keys.idempotency(claim.tenantId, claim.operationId, claim.key),
        entity: 'idempotency',
        fingerprint: claim.fingerprint,
        statusCode: result.statusCode,
        body: result.body ?? '',
        headers: result.headers ?? {},
        expiresAt: epochSeconds(now) + IDEMPOTENCY_TTL_SECONDS,
      },
      ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :now',
      ExpressionAttributeValues: { ':now': epochSeconds(now) },
    },
  },
  onConditionFailed: (current) => {
    const stored = live(current, now);
    if (!stored) return new IdempotencyKeyReusedError();
    try {
      return new IdempotentReplay(resolve(claim, stored));
    } catch (error) {
      return error as Error;
    }
  },
});
