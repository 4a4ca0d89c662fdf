import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULT_DEPLOYMENT, checkDeploymentName } from '../deployment.ts';

/**
 * The deployments' durable settings, committed at the root: one entry per deployment (decisions
 * 20), `{ "prod": {...}, "staging": {...} }`. infra/app.ts reads the entry of its deployment as
 * CDK context (a `-c key=value` still wins), `npm run deploy` writes it, so each deploy repeats
 * the last. Keys are the stack's context keys (docs/cloud-stack.md, Context keys), plus `region`.
 * A file of the older form (one object of settings) is prod's entry. DELIVERY_OPS_DEPLOY_SETTINGS
 * names another file (the tests' own).
 */
export const DEPLOY_SETTINGS_FILE = process.env.DELIVERY_OPS_DEPLOY_SETTINGS ?? fileURLToPath(new URL('../../deploy.settings.json', import.meta.url));

export type DeploySettings = Record<string, string | number | boolean>;
export type DeploymentsFile = Record<string, DeploySettings>;

const isScalar = (value: unknown) => ['string', 'number', 'boolean'].includes(typeof value);

/** Every deployment's entry; undefined when there is no file. */
export const readDeployments = (file = DEPLOY_SETTINGS_FILE): DeploymentsFile | undefined => {
  if (!existsSync(file)) return undefined;
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${file} must hold one JSON object, an entry per deployment`);
  const entries = Object.entries(parsed);
  // The older form: the settings of the one deployment there was.
  if (entries.length > 0 && entries.every(([, value]) => isScalar(value))) return { [DEFAULT_DEPLOYMENT]: parsed as DeploySettings };
  for (const [deployment, settings] of entries) {
    checkDeploymentName(deployment);
    if (!settings || typeof settings !== 'object' || Array.isArray(settings)) throw new Error(`${file}: ${deployment} must be an object of settings`);
    for (const [key, value] of Object.entries(settings)) {
      if (!isScalar(value)) throw new Error(`${file}: ${deployment}.${key} must be a string, a number or a boolean`);
    }
  }
  return parsed as DeploymentsFile;
};

/** One deployment's settings; undefined when the file has no entry for it. */
export const readDeploySettings = (deployment = DEFAULT_DEPLOYMENT, file = DEPLOY_SETTINGS_FILE): DeploySettings | undefined => readDeployments(file)?.[deployment];

/** Writes one deployment's entry and keeps every other one as it is. */
export const writeDeploySettings = (deployment: string, settings: DeploySettings, file = DEPLOY_SETTINGS_FILE): void => {
  const all = { ...readDeployments(file), [checkDeploymentName(deployment)]: settings };
  const sorted = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(file, `${JSON.stringify(sorted(Object.fromEntries(Object.entries(all).map(([d, s]) => [d, sorted(s)]))), null, 2)}\n`);
};
