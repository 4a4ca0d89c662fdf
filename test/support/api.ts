import { randomUUID } from 'node:crypto';
import type { LocalStack } from '../../infra/local/stack.ts';
import { OPERATOR, runAs } from '../../shared/aws-calls/identity.ts';
import type { Role } from '../../shared/auth/roles.ts';
import { newId } from '../../shared/ids.ts';
import { putMember, type Member } from '../../shared/tenancy/members.ts';
import { putTenant } from '../../shared/tenancy/tenants.ts';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallOptions {
  token?: string;
  tenantId?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  idempotencyKey?: string | false;
}

/** A plain HTTP client over the local gateway, as a tenant's team would call the API. */
export const call = async (stack: LocalStack, method: string, path: string, options: CallOptions = {}): Promise<ApiResponse> => {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.tenantId) headers['x-tenant-id'] = options.tenantId;
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  let payload: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    payload = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${stack.baseUrl}${path}`, { method, headers, body: payload });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON: keep the text */
  }
  return { status: response.status, headers: response.headers, body, text };
};

export interface TestMember extends Member {
  token: string;
}

/** A tenant with members of each role, made through the same functions `npm run admin` uses. */
export class TestTenant {
  readonly id = newId();
  private constructor(private readonly stack: LocalStack) {}

  static async create(stack: LocalStack, name = 'Comercial Los Andes SpA', timeZone?: string): Promise<TestTenant> {
    const tenant = new TestTenant(stack);
    // Seed data is made as `npm run admin` makes it: by an operator, not by a function.
    await runAs(OPERATOR, () => putTenant({ id: tenant.id, name, timeZone }));
    return tenant;
  }

  async member(role: Role, options: { firstName?: string; mfa?: boolean } = {}): Promise<TestMember> {
    const subject = `${role}-${randomUUID()}`;
    const member = await runAs(OPERATOR, () => putMember({ tenantId: this.id, subject, role, firstName: options.firstName ?? 'Ana' }));
    const token = await this.stack.devIssuer.mint({ subject, mfa: options.mfa ?? false });
    return { ...member, token };
  }

  call(member: TestMember | undefined, method: string, path: string, options: CallOptions = {}): Promise<ApiResponse> {
    // Operations that are not idempotent ignore the header, so every change may carry one.
    const idempotencyKey = options.idempotencyKey === undefined && method !== 'GET' ? randomUUID() : options.idempotencyKey;
    return call(this.stack, method, path, { token: member?.token, tenantId: this.id, ...options, idempotencyKey });
  }
}
