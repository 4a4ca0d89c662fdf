import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { putMember } from '../../shared/tenancy/members.ts';
import { putTenant } from '../../shared/tenancy/tenants.ts';
import { newId } from '../../shared/ids.ts';
import { call } from '../support/api.ts';
import { useLocalStack } from '../support/stack.ts';
import { OPERATOR, runAs } from '../../shared/aws-calls/identity.ts';

// A company's own identity provider, trusted through OIDC_ISSUER, OIDC_AUDIENCE and OIDC_JWKS_FILE.
const issuer = 'https://login.andes-distribucion.cl/realms/ops';
const audience = 'delivery-ops-api';
const keys = await generateKeyPair('RS256', { extractable: true });
const dir = mkdtempSync(join(tmpdir(), 'jwks-'));
const jwksFile = join(dir, 'jwks.json');
writeFileSync(jwksFile, JSON.stringify({ keys: [{ ...(await exportJWK(keys.publicKey)), kid: 'andes-1', alg: 'RS256', use: 'sig' }] }));
Object.assign(process.env, { OIDC_ISSUER: issuer, OIDC_AUDIENCE: audience, OIDC_JWKS_FILE: jwksFile });

const stack = useLocalStack();
const token = (subject: string, options: { iss?: string; aud?: string } = {}) =>
  new SignJWT({ amr: ['pwd', 'otp'] })
    .setProtectedHeader({ alg: 'RS256', kid: 'andes-1' })
    .setIssuer(options.iss ?? issuer)
    .setAudience(options.aud ?? audience)
    .setSubject(subject)
    .setExpirationTime('10m')
    .sign(keys.privateKey);

describe('a deployment that trusts another issuer', () => {
  const tenantId = newId();
  beforeAll(async () => {
    await runAs(OPERATOR, async () => {
      await putTenant({ id: tenantId, name: 'Andes Distribución' });
      await putMember({ tenantId, subject: 'maria@andes', role: 'admin', firstName: 'María' });
    });
  });

  it('accepts that issuer’s tokens and refuses the built-in dev issuer’s and a wrong audience', async () => {
    expect(stack().issuer).toBe(issuer);
    expect((await call(stack(), 'GET', '/v1/fleet/vehicles', { token: await token('maria@andes'), tenantId })).status).toBe(200);
    const dev = await stack().devIssuer.mint({ subject: 'maria@andes', mfa: true });
    expect((await call(stack(), 'GET', '/v1/fleet/vehicles', { token: dev, tenantId })).status).toBe(401);
    expect((await call(stack(), 'GET', '/v1/fleet/vehicles', { token: await token('maria@andes', { aud: 'other' }), tenantId })).status).toBe(401);
    expect((await call(stack(), 'GET', '/v1/fleet/vehicles', { token: await token('maria@andes', { iss: 'https://evil.example.com' }), tenantId })).status).toBe(401);
  });

  it('serves the OpenAPI document without a token', async () => {
    const response = await call(stack(), 'GET', '/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toMatch(/^3\.1\./);
    expect(response.body.info.version).toBe('0.4.0');
    expect(Object.keys(response.body.paths)).toContain('/v1/webhooks/endpoints');
  });
});
