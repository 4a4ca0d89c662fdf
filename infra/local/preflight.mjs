#!/usr/bin/env node
// What `npm start` and `npm test` need from the machine, checked before anything else runs, so a
// fresh machine gets one line naming what to install instead of a stack trace minutes later.
// Plain JavaScript with no imports outside node: it must run before `npm install` has.
// As root with apt-get (a CI machine, a container), it installs the Debian packages itself.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const purpose = process.argv[2] === 'test' ? 'test' : 'start';

const works = (command, args) => {
  const probe = spawnSync(command, args, { stdio: 'ignore' });
  return !probe.error && probe.status === 0;
};

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const needs = [
  {
    what: 'Java 17 or newer (DynamoDB Local runs on it)',
    package: 'openjdk-17-jre-headless',
    present: () => works('java', ['-version']),
  },
  ...(purpose === 'test'
    ? [{ what: `Chromium at ${chromiumPath} (the tracking page's browser tests)`, package: 'chromium', present: () => existsSync(chromiumPath) }]
    : []),
];

const fail = (line) => {
  console.error(`preflight: ${line}`);
  process.exit(1);
};

if (!existsSync(join(root, 'node_modules', '.package-lock.json'))) {
  fail(`the project's packages are not installed: run \`npm install\` first, then \`npm ${purpose === 'test' ? 'test' : 'start'}\`.`);
}

const missing = needs.filter((need) => !need.present());
if (missing.length > 0) {
  const packages = missing.map((need) => need.package);
  const canInstall = process.getuid?.() === 0 && works('apt-get', ['--version']) && process.env.PREFLIGHT_NO_INSTALL !== '1';
  if (!canInstall) {
    fail(`missing ${missing.map((need) => need.what).join(' and ')}: install with \`sudo apt-get install -y ${packages.join(' ')}\`.`);
  }
  console.error(`preflight: installing ${packages.join(' ')} with apt-get (missing: ${missing.map((need) => need.what).join(', ')})`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const run = (args) => spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env }).status === 0;
  if (!run(['update', '-qq']) || !run(['install', '-y', '-qq', '--no-install-recommends', ...packages])) {
    fail(`apt-get could not install ${packages.join(' ')}: install them by hand (\`apt-get install -y ${packages.join(' ')}\`).`);
  }
  const still = missing.filter((need) => !need.present());
  if (still.length > 0) fail(`still missing after apt-get: ${still.map((need) => need.what).join(' and ')}.`);
}
