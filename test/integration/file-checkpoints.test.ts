import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileCheckpoints } from '../../infra/local/file-checkpoints.ts';

const dir = mkdtempSync(join(tmpdir(), 'checkpoints-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The local stack is killed at any moment (npm run chaos): the file must never be caught half written,
// or the next start cannot read the stream positions and stops.
describe('the stream positions file', () => {
  it('is never seen half written while another process saves positions in a loop', async () => {
    const file = join(dir, 'stream-positions.json');
    // Many consumers make a file large enough that an in-place write takes a visible moment.
    const writer = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `import('${new URL('../../infra/local/file-checkpoints.ts', import.meta.url).pathname}').then(({ fileCheckpoints }) => {
          const checkpoints = fileCheckpoints(${JSON.stringify(file)});
          for (let i = 0; ; i++) checkpoints.save('consumer-' + (i % 2000), 'shard-' + (i % 3), String(10 ** 20 + i));
        })`,
      ],
      { stdio: 'ignore' },
    );
    try {
      let reads = 0;
      let torn = 0;
      const deadline = Date.now() + 4_000;
      while (Date.now() < deadline) {
        if (!existsSync(file)) {
          await new Promise((r) => setTimeout(r, 5));
          continue;
        }
        const text = readFileSync(file, 'utf8');
        reads++;
        try {
          JSON.parse(text);
        } catch {
          torn++;
        }
        if (reads % 50 === 0) await new Promise((r) => setImmediate(r));
      }
      expect(reads).toBeGreaterThan(100);
      expect(torn).toBe(0);
    } finally {
      writer.kill('SIGKILL');
    }
    // What is left after the kill reads back.
    expect(() => fileCheckpoints(file).load('consumer-1')).not.toThrow();
  }, 240_000);
});
