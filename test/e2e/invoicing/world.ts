import { expect } from 'vitest';
import type { LocalStack } from '../../../infra/local/stack.ts';
import type { Role } from '../../../shared/auth/roles.ts';
import { ProviderChile } from '../../../shared/ports/billing-provider/provider-chile.ts';
import { setBillingProvider } from '../../../shared/ports/billing-provider/registry.ts';
import { TestTenant, type TestMember } from '../../support/api.ts';
import { startFakeProviderEnv } from '../../support/provider-env.ts';
import type { ProviderFake } from '../../support/provider-fake/index.ts';
import { RUT } from '../integrations/support.ts';
import { connectFake, FAKE_SETTINGS } from './provider-fake.ts';

/** The fake's guide type (8: codeSii 52, active) and shipping types (ids equal their codeSii 1, 5, 6). */
export const FAKE_GUIDE_SETTINGS = {
  ...FAKE_SETTINGS,
  documentTypeIds: { ...FAKE_SETTINGS.documentTypeIds, dispatchGuide: '8' },
  shippingTypeIds: { sale: '1', internalTransfer: '5', otherTransfer: '6' },
};

/** The real adapter pointed at the fake, with the caller's deadline (tests that call the domain functions directly choose short ones). */
export const fakeProviderChile = (fake: ProviderFake, timeoutMs?: number) =>
  new ProviderChile({ apiUrl: fake.apiUrl, oauthUrl: fake.oauthUrl, appId: fake.appId, userToken: async () => fake.userToken, timeoutMs });

/** That adapter as this process's provider-chile-v1 (the test calls the domain functions itself); the returned function unregisters it. */
export const registerFakeProviderChile = (fake: ProviderFake, timeoutMs?: number) => {
  setBillingProvider('provider-chile-v1', fakeProviderChile(fake, timeoutMs));
  return () => setBillingProvider('provider-chile-v1', undefined);
};

type Company = { clientCode: string; clientName: string };

/** A provider-chile-v1 connection of the fake's company with the guide settings and a customer (client 2). */
export const guideConnection = async (fake: ProviderFake, tenant: TestTenant, admin: TestMember, company: Company, existingToken?: string) => {
  const ready = await connectFake(fake, tenant, admin, company, existingToken);
  const settings = await tenant.call(admin, 'PUT', `/v1/integrations/connections/${ready.connectionId}/issue-settings`, { body: { version: 2, ...FAKE_GUIDE_SETTINGS } });
  expect(settings.status, settings.text).toBe(200);
  return ready;
};

export interface ProviderWorldOptions<R extends Role> {
  /** The members besides the admin, created with it; an operator unless given. */
  members?: readonly R[];
  /** The fake's company the tenant connects: Frutas del Maule (RUT.a) unless given. */
  company?: Company;
  /** The connection also gets the guide settings (dispatch guide type and shipping types). */
  guides?: boolean;
  /** The deadline of the world's `provider` (the adapter's own unless given). */
  timeoutMs?: number;
  /** Registers `provider` as this process's provider-chile-v1; `close` unregisters it. */
  register?: boolean;
}

export type ProviderWorld<R extends Role = 'operator'> = {
  fake: ProviderFake;
  tenant: TestTenant;
  admin: TestMember;
  ready: Awaited<ReturnType<typeof connectFake>>;
  /** The real adapter pointed at the fake. */
  provider: ProviderChile;
  /** Unregisters the adapter (if registered) and stops the fake. */
  close: () => Promise<void>;
} & Record<R, TestMember>;

/**
 * What the provider files start from: the provider fake, a tenant with an admin and `members`, and
 * the fake's company connected with issue settings and a customer. The caller calls `close`.
 */
export const openProviderWorld = async <R extends Role = 'operator'>(stack: LocalStack, options: ProviderWorldOptions<R> = {}): Promise<ProviderWorld<R>> => {
  const roles = options.members ?? (['operator'] as unknown as readonly R[]);
  const company = options.company ?? { clientCode: RUT.a, clientName: 'Frutas del Maule SpA' };
  const fake = await startFakeProviderEnv();
  try {
    const tenant = await TestTenant.create(stack);
    const [admin, ...others] = await Promise.all([tenant.member('admin'), ...roles.map((role) => tenant.member(role))]);
    const ready = await (options.guides ? guideConnection : connectFake)(fake, tenant, admin!, company);
    const provider = fakeProviderChile(fake, options.timeoutMs);
    if (options.register) setBillingProvider('provider-chile-v1', provider);
    const close = async () => {
      if (options.register) setBillingProvider('provider-chile-v1', undefined);
      await fake.stop();
    };
    const members = Object.fromEntries(roles.map((role, i) => [role, others[i]!])) as Record<R, TestMember>;
    return { fake, tenant, admin: admin!, ready, provider, close, ...members };
  } catch (error) {
    // A set-up that fails half-way leaves no fake listening (the caller never gets `close`).
    await fake.stop();
    throw error;
  }
};
