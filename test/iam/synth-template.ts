import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Template } from './template-names.ts';

const main = fileURLToPath(new URL('./synth-template-main.ts', import.meta.url));
const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The stack's template as `cdk synth` makes it (without bundling). Synthesized in a child
 * process: a synth takes tens of seconds of CPU on a busy machine, and done in the test worker
 * it would block the worker's messages to vitest for as long.
 */
export const synthTemplate = async (): Promise<Template> => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', main], { cwd: root, maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout) as Template;
};
