import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';

export const DEV_AUDIENCE = 'delivery-ops-local';

export interface DevIssuer {
  issuer: string;
  audience: string;
  jwksFile: string;
  jwks: { keys: JWK[] };
  mint(options: { subject: string; mfa?: boolean; ttlSeconds?: number; expiresAt?: Date }): Promise<string>;
}

/**
 * The built-in development OIDC issuer: an RS256 key kept under the data folder, its JWKS
 * written to a file the handlers trust (OIDC_JWKS_FILE), and a way to mint access tokens.
 * It only ever runs in the local stack.
 */
export const startDevIssuer = async (options: { dir: string; issuer: string; audience?: string }): Promise<DevIssuer> => {
  mkdirSync(options.dir, { recursive: true });
  const privateFile = join(options.dir, 'signing-key.private.jwk.json');
  const jwksFile = join(options.dir, 'jwks.json');
  let privateJwk: JWK;
  if (existsSync(privateFile)) {
    privateJwk = JSON.parse(readFileSync(privateFile, 'utf8'));
  } else {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    privateJwk = { ...(await exportJWK(privateKey)), kid: `dev-${Date.now().toString(36)}`, alg: 'RS256', use: 'sig' };
    writeFileSync(privateFile, JSON.stringify(privateJwk), { mode: 0o600 });
  }
  const { d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...publicJwk } = privateJwk;
  const jwks = { keys: [publicJwk] };
  writeFileSync(jwksFile, JSON.stringify(jwks, null, 2));
  const key = await importJWK(privateJwk, 'RS256');
  const audience = options.audience ?? DEV_AUDIENCE;
  return {
    issuer: options.issuer,
    audience,
    jwksFile,
    jwks,
    mint: async ({ subject, mfa = false, ttlSeconds = 3600, expiresAt }) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ amr: mfa ? ['pwd', 'mfa'] : ['pwd'], scope: 'openid' })
        .setProtectedHeader({ alg: 'RS256', kid: privateJwk.kid, typ: 'JWT' })
        .setIssuer(options.issuer)
        .setAudience(audience)
        .setSubject(subject)
        .setIssuedAt(now)
        .setJti(crypto.randomUUID())
        .setExpirationTime(expiresAt ? Math.floor(expiresAt.getTime() / 1000) : now + ttlSeconds)
        .sign(key);
    },
  };
};
