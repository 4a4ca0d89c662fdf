import { verifyAccessToken } from '../../auth/token-verifier.ts';
import { header, type ApiMiddleware } from '../types.ts';

/** 401 unless the bearer token is a valid access token of the configured issuer and audience. */
export const verifyToken = (): ApiMiddleware => ({
  before: async ({ event, context }) => {
    if (context.operation.access === 'public') return;
    context.claims = await verifyAccessToken(header(event, 'authorization'));
  },
});
