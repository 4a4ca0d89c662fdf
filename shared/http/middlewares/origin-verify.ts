import { createHash, timingSafeEqual } from 'node:crypto';
import { config } from '../../config.ts';
import { DependencyUnavailableError, OriginNotVerifiedError } from '../../errors.ts';
import { secrets, type SecretStage } from '../../ports/secrets.ts';
import { ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_HEADER, VIEWER_HOST_HEADER } from '../edge-headers.ts';
import { isDependencyFailure } from '../problem.ts';
import { header, type ApiEvent, type ApiMiddleware } from '../types.ts';

/**
 * Both stages pass, so a rotation never cuts traffic: CloudFront's edges take minutes to move
 * to the new value, and until then some still send the one that has just become AWSPREVIOUS.
 */
const STAGES: SecretStage[] = ['AWSCURRENT', 'AWSPREVIOUS'];

/**
 * After a mismatch the values are read again if the cached ones are older than this. A
 * container that cached the old pair just before a rotation accepts the new value within this
 * time, while requests with wrong values cost Secrets Manager at most one read per stage per
 * this time and container.
 */
export const REFRESH_AFTER_MISMATCH_MS = 10_000;

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** Equal-length digests make the comparison independent of where the strings differ. */
const same = (given: Buffer, expected: string | undefined): boolean => expected !== undefined && expected !== '' && timingSafeEqual(given, digest(expected));

const matches = async (secretArn: string, given: Buffer, maxAgeMs?: number): Promise<boolean> => {
  const values = await Promise.all(STAGES.map((stage) => secrets().read(secretArn, stage, { maxAgeMs })));
  return values.some((value) => same(given, value));
};

const verified = async (secretArn: string, given: string | undefined): Promise<boolean> => {
  if (!given) return false;
  const hash = digest(given);
  try {
    return (await matches(secretArn, hash)) || (await matches(secretArn, hash, REFRESH_AFTER_MISMATCH_MS));
  } catch (error) {
    if (isDependencyFailure(error)) throw new DependencyUnavailableError('The secret store');
    throw error;
  }
};

/** A host name with an optional port, nothing that could change a URL's meaning. */
const HOST = /^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?(?::\d{1,5})?$/i;

/**
 * Where links for this request point: PUBLIC_BASE_URL when the deployment names it, else the
 * viewer's host as CloudFront passed it on, but only once the origin check vouched for the
 * request; else nothing, and links stay relative.
 */
const publicBaseUrl = (event: ApiEvent, originChecked: boolean): string => {
  if (config.publicBaseUrl) return config.publicBaseUrl;
  const host = originChecked ? header(event, VIEWER_HOST_HEADER) : undefined;
  return host && HOST.test(host) ? `https://${host.toLowerCase()}` : '';
};

/** The address part of `address:port` (IPv6 with or without brackets); undefined when it is not one. */
export const viewerAddressOf = (value: string | undefined): string | undefined => {
  const match = value === undefined ? null : /^\[?([0-9a-f.:]{2,45}?)\]?:(\d{1,5})$/i.exec(value.trim());
  return match ? match[1]!.toLowerCase() : undefined;
};

/**
 * Second in the chain, before any token or table work: in the cloud only CloudFront knows the
 * origin secret, so a request that went around CloudFront and WAF (the execute-api address)
 * answers 403. Off when ORIGIN_VERIFY_SECRET_ARN is unset (the local stack); the CDK stack
 * always sets it.
 */
export const originVerify = (): ApiMiddleware => ({
  before: async ({ event, context }) => {
    const secretArn = config.originVerifySecretArn;
    if (secretArn && !(await verified(secretArn, header(event, ORIGIN_VERIFY_HEADER)))) throw new OriginNotVerifiedError();
    context.publicBaseUrl = publicBaseUrl(event, secretArn !== undefined);
    // Per-address limits count the viewer, not CloudFront's edge; a viewer's own header never passes the check.
    if (secretArn) context.viewerAddress = viewerAddressOf(header(event, VIEWER_ADDRESS_HEADER));
  },
});
