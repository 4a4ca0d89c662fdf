import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The deployment's durable settings, committed at the root: infra/app.ts reads them as CDK context
 * (a `-c key=value` still wins), `npm run deploy` writes them, so each deploy repeats the last.
 * Keys are the stack's context keys (docs/cloud-stack.md, Context keys), plus `region`.
 * DELIVERY_OPS_DEPLOY_SETTINGS names another file (the tests' own).
 */
export const DEPLOY_SETTINGS_FILE = process.env.DELIVERY_OPS_DEPLOY_SETTINGS ?? fileURLToPath(new URL('../../deploy.settings.json', import.meta.url));

export type DeploySettings = Record<string, string | number | boolean>;

export const readDeploySettings = (file = DEPLOY_SETTINGS_FILE): DeploySettings | undefined => {
  if (!existsSync(file)) return undefined;
  const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${file} must hold one JSON object of settings`);
  for (const [key, value] of Object.entries(parsed)) {
    if (!['string', 'number', 'boolean'].includes(typeof value)) throw new Error(`${file}: ${key} must be a string, a number or a boolean`);
  }
  return parsed as DeploySettings;
};

export const writeDeploySettings = (settings: DeploySettings, file = DEPLOY_SETTINGS_FILE): void => {
  const sorted = Object.fromEntries(Object.entries(settings).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(file, `${JSON.stringify(sorted, null, 2)}\n`);
};
