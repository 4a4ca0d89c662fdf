import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WAIT_LIMIT_MS } from '../support/wait-limit.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

// A vitest run that dies (a hook timeout, SIGTERM, SIGKILL) must not leave DynamoDB Local behind:
// before, four orphaned Java processes were found after timed-out runs.
describe('DynamoDB Local outlives no spawner', () => {
  it('dies when the process that started it is killed without a chance to stop it', async () => {
    const script = `import { startDynamoDbLocal } from './infra/local/dynamodb-local.ts';
const db = await startDynamoDbLocal();
process.stdout.write(String(db.pid) + '\\n');
setInterval(() => {}, 1000);`;
    const spawner = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    const [chunk] = (await once(spawner.stdout!, 'data')) as [Buffer];
    const javaPid = Number(chunk.toString().trim());
    expect(alive(javaPid)).toBe(true);

    spawner.kill('SIGKILL');
    await once(spawner, 'exit');
    const deadline = Date.now() + WAIT_LIMIT_MS;
    while (alive(javaPid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const orphaned = alive(javaPid);
    if (orphaned) process.kill(javaPid, 'SIGKILL');
    expect(orphaned).toBe(false);
  }, 240_000);
});
