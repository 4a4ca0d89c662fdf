import { afterAll } from 'vitest';

// A setup file: runs before each test file in its worker. Files share a worker's process
// (vitest.config.ts, isolate: false), so the settings a file or its stack put in process.env
// would reach the files after it: the environment it found is put back once it ends. Its
// afterAll runs after the file's own (after hooks run as a stack), when the file's stack is down.
const found = { ...process.env };

afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in found)) delete process.env[name];
  Object.assign(process.env, found);
});
