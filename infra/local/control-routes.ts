import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DevIssuer } from './oidc-issuer.ts';
import type { LocalRoute } from './gateway.ts';

export interface StackInfo {
  baseUrl: string;
  tableName: string;
  dynamoEndpoint: string;
  issuer: string;
  audience: string;
  inMemory: boolean;
}

const json = (res: ServerResponse, status: number, body: unknown): true => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  return true;
};

/**
 * Local-only endpoints, never part of the API: discovery for `npm run admin` and token minting
 * for `npm run token`, so both act on the running stack whether its data is in memory or not.
 */
export const controlRoutes = (info: () => StackInfo, issuer: () => DevIssuer): LocalRoute => async (req: IncomingMessage, body: Buffer, res: ServerResponse) => {
  const path = new URL(req.url ?? '/', 'http://local').pathname;
  if (req.method === 'GET' && path === '/_local/stack') return json(res, 200, info());
  if (req.method === 'POST' && path === '/_local/token') {
    let input: { subject?: unknown; mfa?: unknown; ttlSeconds?: unknown };
    try {
      input = JSON.parse(body.toString('utf8') || '{}');
    } catch {
      return json(res, 400, { message: 'body must be JSON' });
    }
    if (typeof input.subject !== 'string' || input.subject === '') return json(res, 400, { message: 'subject is required' });
    const token = await issuer().mint({ subject: input.subject, mfa: input.mfa === true, ttlSeconds: typeof input.ttlSeconds === 'number' ? input.ttlSeconds : undefined });
    return json(res, 200, { token, issuer: issuer().issuer, audience: issuer().audience });
  }
  if (req.method === 'GET' && path === '/dev-oidc/.well-known/openid-configuration') {
    const iss = issuer().issuer;
    return json(res, 200, { issuer: iss, jwks_uri: `${iss}/.well-known/jwks.json`, id_token_signing_alg_values_supported: ['RS256'] });
  }
  if (req.method === 'GET' && path === '/dev-oidc/.well-known/jwks.json') return json(res, 200, issuer().jwks);
  return false;
};
