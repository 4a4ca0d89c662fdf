/**
 * Runtime settings, read from the environment once per cold start. Every value has a default
 * that is safe in the cloud; the local stack and the tests override them through the same names.
 */
const env = process.env;

const int = (name: string, fallback: number): number => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer`);
  return value;
};

export const config = {
  get tableName(): string {
    return env.TABLE_NAME ?? 'delivery-ops';
  },
  /** Set only for DynamoDB Local; in the cloud the SDK finds the regional endpoint. */
  get dynamoEndpoint(): string | undefined {
    return env.DYNAMODB_ENDPOINT || undefined;
  },
  /** DynamoDB Local on a data folder: its transactions are waited for until written (local-commit-barrier.ts). */
  get dynamoLocalDurable(): boolean {
    return env.DYNAMODB_LOCAL_DURABLE === '1';
  },
  get oidcIssuer(): string {
    return env.OIDC_ISSUER ?? '';
  },
  get oidcAudience(): string {
    return env.OIDC_AUDIENCE ?? '';
  },
  /** A JWKS file trusted instead of fetching the issuer's jwks_uri (local stack, air-gapped runs). */
  get oidcJwksFile(): string | undefined {
    return env.OIDC_JWKS_FILE || undefined;
  },
  get oidcMfaEnforced(): boolean {
    return env.OIDC_MFA_ENFORCED === '1';
  },
  /**
   * How long one table call may take before it fails (and the SDK tries again): 3 s in the cloud,
   * where DynamoDB answers in milliseconds. The tests raise it: DynamoDB Local on a shared machine
   * under a full parallel run can take seconds.
   */
  get tableRequestTimeoutMs(): number {
    return int('TABLE_REQUEST_TIMEOUT_MS', 3_000);
  },
  /**
   * How long opening a connection to the table may take: 1 s in the cloud. The tests raise it: a
   * worker whose event loop is held up by other work sees its connect timer fire before it gets to
   * the socket's connect event, and a busy shared machine holds it up for longer than a second.
   */
  get tableConnectTimeoutMs(): number {
    return int('TABLE_CONNECT_TIMEOUT_MS', 1_000);
  },
  /**
   * How long invoicing waits for the billing provider, per issue and per provider call: 8 s
   * (decisions 9). The answer window and the reconciler's in-flight wait are counted from it, so
   * they follow it. The tests raise it as they raise the table's timeouts: the provider fake runs
   * in the same loaded process, and on a busy machine it answered a call after 8 s.
   */
  get providerDeadlineMs(): number {
    return int('PROVIDER_DEADLINE_MS', 8_000);
  },
  /**
   * A webhook attempt's whole budget when its request names none: 10 s (the specification). The
   * tests raise it: their receivers share the loaded machine, and one that answered late was
   * recorded as failed though it had received the delivery.
   */
  get webhookAttemptTimeoutMs(): number {
    return int('WEBHOOK_ATTEMPT_TIMEOUT_MS', 10_000);
  },
  get tenantRatePerMinute(): number {
    return int('TENANT_RATE_LIMIT_PER_MINUTE', 1200);
  },
  /** Requests one token subject may have refused as a non-member per minute before its 429. */
  get refusedRatePerMinute(): number {
    return int('REFUSED_RATE_LIMIT_PER_MINUTE', 30);
  },
  get maxBodyBytes(): number {
    return 256 * 1024;
  },
  /**
   * The Secrets Manager secret CloudFront sends in x-origin-verify. Unset, the origin check is
   * off (the local stack); the CDK stack always sets it.
   */
  get originVerifySecretArn(): string | undefined {
    return env.ORIGIN_VERIFY_SECRET_ARN || undefined;
  },
  /** Where tracking links point; without it, the viewer's host as CloudFront reports it. */
  get publicBaseUrl(): string {
    return (env.PUBLIC_BASE_URL ?? '').replace(/\/+$/, '');
  },
  get serviceName(): string {
    return env.POWERTOOLS_SERVICE_NAME ?? 'delivery-ops';
  },
};
