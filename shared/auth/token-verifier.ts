import { readFileSync } from 'node:fs';
import { JwtRsaVerifier } from 'aws-jwt-verify';
import { FetchError, JwtBaseError, JwtExpiredError } from 'aws-jwt-verify/error';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';
import { config } from '../config.ts';
import { DependencyUnavailableError, UnauthorizedError } from '../errors.ts';

type Verifier = { verify(token: string): Promise<JwtPayload> };

const makeVerifier = (): Verifier => {
  const issuer = config.oidcIssuer;
  const audience = config.oidcAudience;
  if (!issuer || !audience) throw new Error('OIDC_ISSUER and OIDC_AUDIENCE must be set');
  const jwksFile = config.oidcJwksFile;
  // With a JWKS file the keys are trusted as given and never fetched, so an unknown kid is
  // simply an invalid token; otherwise aws-jwt-verify fetches and caches the issuer's JWKS.
  const verifier = JwtRsaVerifier.create({
    issuer,
    audience,
    jwksUri: jwksFile ? 'https://jwks-file.invalid/jwks.json' : undefined,
  });
  if (jwksFile) verifier.cacheJwks(JSON.parse(readFileSync(jwksFile, 'utf8')));
  return verifier as unknown as Verifier;
};

let verifier: Verifier | undefined;

export const resetTokenVerifier = (): void => {
  verifier = undefined;
};

/** Verifies signature, issuer, audience and expiry; the token itself never reaches a log. */
export const verifyAccessToken = async (authorization: string | undefined): Promise<JwtPayload> => {
  if (!authorization) throw new UnauthorizedError('An Authorization: Bearer token is required.', 'token_missing');
  const match = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
  if (!match) throw new UnauthorizedError('The Authorization header must be "Bearer <token>".', 'token_invalid');
  verifier ??= makeVerifier();
  try {
    return await verifier.verify(match[1]);
  } catch (error) {
    if (error instanceof JwtExpiredError) throw new UnauthorizedError('The access token has expired.', 'token_expired');
    if (error instanceof FetchError && !jwksFileInUse()) throw new DependencyUnavailableError('The identity provider');
    if (error instanceof JwtBaseError) throw new UnauthorizedError('The access token is not valid.', 'token_invalid');
    throw error;
  }
};

const jwksFileInUse = (): boolean => config.oidcJwksFile !== undefined;

/** Two-step verification, read from the standard `amr` claim (RFC 8176). */
const strongMethods = new Set(['mfa', 'otp', 'hwk', 'swk', 'sms']);

export const hasTwoStepVerification = (claims: JwtPayload): boolean => {
  if (config.oidcMfaEnforced) return true;
  const amr = claims.amr;
  return Array.isArray(amr) && amr.some((method) => typeof method === 'string' && strongMethods.has(method));
};
