import { afterAll, beforeAll, expect } from 'vitest';
import type { LocalStack, LocalStackOptions } from '../../../infra/local/stack.ts';
import { OPERATOR, runAs } from '../../../shared/aws-calls/identity.ts';
import { commit } from '../../../shared/table/transaction.ts';
import { TestTenant, type ApiResponse, type TestMember } from '../../support/api.ts';
import { eventually, Receiver, type Received } from '../../support/receiver.ts';
import { useLocalStack } from '../../support/stack.ts';
import { orderCreatedEvent } from './order-event.ts';

export interface WebhookWorldOptions extends Omit<LocalStackOptions, 'dynamoEndpoint' | 'port'> {
  /**
   * The seconds between attempts, one per retry (WEBHOOK_RETRY_DELAYS): '0' makes a destination
   * die in one go, '1' leaves time to read each attempt. The stack's own schedule unless given.
   */
  retryDelay?: '0' | '1';
}

interface CreatedEndpoint {
  endpoint: { id: string; url: string; [field: string]: unknown };
  secret: { id: string; value: string };
}

export interface WebhookWorld {
  stack: () => LocalStack;
  /** Listens on 127.0.0.1 (the stack allows private destinations); its `url` ends in /hooks. */
  receiver: Receiver;
  tenant: TestTenant;
  /** An admin with MFA, who may manage destinations. */
  admin: TestMember;
  /** A destination at the receiver's url, or below it at `path`; fails the test unless created. */
  createEndpoint: (eventTypes: string[], path?: string) => Promise<CreatedEndpoint>;
  /** Queues a test notification to the destination and returns the delivery. */
  sendTest: (endpointId: string) => Promise<{ id: string; [field: string]: unknown }>;
  /** An order event as an operation writes it: an outbox item in its own transaction. */
  emitOrderCreated: () => Promise<{ id: string }>;
  /** The admin's GET of `path`, again until `accept` takes it. */
  readUntil: (path: string, accept: (response: ApiResponse) => boolean, timeoutMs?: number) => Promise<ApiResponse>;
  /** What the receiver got below /hooks/`path`. */
  receivedAt: (path: string) => Received[];
}

/**
 * What the webhook delivery files start from: a stack that delivers to private addresses, a
 * receiver on 127.0.0.1, and a tenant with an MFA admin. Its own beforeAll/afterAll open and close
 * it; the fields are there from the file's first test on.
 */
export const useWebhookWorld = (options: WebhookWorldOptions = {}): WebhookWorld => {
  const { retryDelay, env, ...stackOptions } = options;
  const delays: Record<string, string> = retryDelay === undefined ? {} : { WEBHOOK_RETRY_DELAYS: Array(7).fill(retryDelay).join(',') };
  const stack = useLocalStack({ ...stackOptions, env: { WEBHOOK_ALLOW_PRIVATE_DESTINATIONS: '1', ...delays, ...env } });
  const receiver = new Receiver();
  const world: WebhookWorld = {
    stack,
    receiver,
    tenant: undefined as unknown as TestTenant,
    admin: undefined as unknown as TestMember,
    createEndpoint: async (eventTypes, path) => {
      const url = path === undefined ? receiver.url : `${receiver.url}/${path}`;
      const created = await world.tenant.call(world.admin, 'POST', '/v1/webhooks/endpoints', { body: { url, eventTypes } });
      expect(created.status, created.text).toBe(201);
      return created.body as CreatedEndpoint;
    },
    sendTest: async (endpointId) => {
      const test = await world.tenant.call(world.admin, 'POST', `/v1/webhooks/endpoints/${endpointId}/test`);
      expect(test.status, test.text).toBe(202);
      return test.body;
    },
    emitOrderCreated: async () => {
      const { event, write } = orderCreatedEvent(world.tenant.id);
      await runAs(OPERATOR, () => commit([write]));
      return event;
    },
    readUntil: (path, accept, timeoutMs) => eventually(() => world.tenant.call(world.admin, 'GET', path), accept, timeoutMs),
    receivedAt: (path) => receiver.received.filter((r) => r.path.startsWith(`/hooks/${path}`)),
  };
  beforeAll(async () => {
    await receiver.start();
    world.tenant = await TestTenant.create(stack());
    world.admin = await world.tenant.member('admin', { mfa: true });
  });
  afterAll(() => receiver.stop());
  return world;
};
