import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { NodeHttpHandler } from '@smithy/node-http-handler';

export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  /** The Java process, for tests that kill it as a crash would. */
  pid: number;
  stop(): Promise<void>;
}

/** The DynamoDB Local jar that the amplify-dynamodb-simulator package ships (AWS's own emulator). */
const emulatorDir = (): string => {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('amplify-dynamodb-simulator/package.json')), 'emulator');
};

const handedOut = new Set<number>();

/**
 * A port nobody listens on now, never one this process handed out before: the kernel may offer
 * a port again once the probe closes it, and two of our own servers must not race for it.
 */
export const freePort = async (): Promise<number> => {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
};

const assertJava = (): void => {
  const probe = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) {
    throw new Error('DynamoDB Local needs Java 17 or newer on PATH. On Debian/Ubuntu: sudo apt-get install -y openjdk-17-jre-headless');
  }
};

/** DynamoDB Local could not bind its port: something else took it first. */
export class PortTakenError extends Error {
  override readonly name = 'PortTakenError';
  readonly code = 'port_taken';
}

/** Extra JVM options (DYNAMODB_LOCAL_JAVA_OPTS, space-separated): the tests trade peak speed for less JIT work. */
const javaOptions = (): string[] => (process.env.DYNAMODB_LOCAL_JAVA_OPTS ?? '').split(/\s+/).filter(Boolean);

/** Java's words when the port is taken: it says so on stderr but keeps running, bound to nothing. */
const BIND_FAILED = /BindException|Failed to bind|Address already in use/;

/** CPU seconds a process has used (utime + stime of /proc/<pid>/stat, in 1/100 s), or undefined off Linux. */
const cpuSeconds = (pid: number | undefined): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
};

/**
 * How long a start-up may take. Java needs about 1.5 s of CPU to answer; on a busy machine that is
 * as many seconds of the clock as the other processes leave it (a test run at load 20 starting
 * three at once saw more than 30 s). So the limit is Java's own CPU, which does not stretch with
 * the load: one that spent 60 CPU seconds without answering is stuck. The clock's limit only ends
 * a Java that hangs without running (off Linux, where its CPU cannot be read, it is the limit).
 */
const STARTUP_CPU_SECONDS = 60;
const STARTUP_WALL_MS = 10 * 60_000;
const STARTUP_WALL_MS_WITHOUT_CPU = 120_000;

const waitUntilReady = async (endpoint: string, child: ChildProcess, stderr: () => string): Promise<void> => {
  const started = Date.now();
  const wallLimit = cpuSeconds(child.pid) === undefined ? STARTUP_WALL_MS_WITHOUT_CPU : STARTUP_WALL_MS;
  // A short request timeout at first: whatever else holds the port may accept and never answer.
  // A Java that is merely slow gets a longer one with each try that timed out.
  let requestTimeout = 2_000;
  for (;;) {
    if (BIND_FAILED.test(stderr())) throw new PortTakenError(`DynamoDB Local could not bind ${endpoint}: the port is taken`);
    if (child.exitCode !== null) throw new Error(`DynamoDB Local exited with code ${child.exitCode}`);
    const cpu = cpuSeconds(child.pid);
    if ((cpu ?? 0) > STARTUP_CPU_SECONDS || Date.now() - started > wallLimit) {
      throw new Error(`DynamoDB Local did not answer on ${endpoint} in ${Math.round((Date.now() - started) / 1000)} s (${cpu ?? '?'} s of its CPU)`);
    }
    const client = new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
      requestHandler: new NodeHttpHandler({ connectionTimeout: requestTimeout, requestTimeout, throwOnRequestTimeout: true }),
    });
    const asked = Date.now();
    // Java saying it could not bind ends the wait for an answer at once.
    const abort = new AbortController();
    const watch = setInterval(() => BIND_FAILED.test(stderr()) && abort.abort(), 100);
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: abort.signal });
      // An answer from whatever held the port first, once Java has said it could not bind.
      if (!BIND_FAILED.test(stderr())) return;
    } catch {
      if (Date.now() - asked >= requestTimeout) requestTimeout = Math.min(requestTimeout * 2, 30_000);
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      clearInterval(watch);
      client.destroy();
    }
  }
};

/**
 * Starts DynamoDB Local on 127.0.0.1. With `dataDir` the data persists there; without it, the data
 * lives in memory. One database whatever region or credentials a client uses, unless `sharedDb` is
 * false: then one per access key and region (the test run's, shared/table/local-access.ts).
 */
export const startDynamoDbLocal = async (options: { dataDir?: string; port?: number; sharedDb?: boolean } = {}): Promise<DynamoDbLocal> => {
  if (options.port !== undefined) return startOn(options.port, options);
  // A free port is only free until someone binds it: another process (a parallel test worker's
  // DynamoDB Local, say) can take it between the pick and Java's bind. Then Java says so; pick again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOn(await freePort(), options);
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt === 3) throw error;
    }
  }
};

let setprivFound: boolean | undefined;

/**
 * Java does not notice its parent's death: a test run killed mid-way (a hook timeout, SIGTERM)
 * left its DynamoDB Locals running. On Linux, util-linux's setpriv asks the kernel to kill Java
 * when the process that spawned it dies; it execs Java, so the pid stays Java's.
 */
const javaCommand = (args: string[]): [string, string[]] => {
  setprivFound ??= process.platform === 'linux' && spawnSync('setpriv', ['--version'], { stdio: 'ignore' }).status === 0;
  return setprivFound ? ['setpriv', ['--pdeathsig', 'KILL', '--', 'java', ...args]] : ['java', args];
};

const startOn = async (port: number, { dataDir, sharedDb = true }: { dataDir?: string; sharedDb?: boolean }): Promise<DynamoDbLocal> => {
  assertJava();
  const dir = emulatorDir();
  const storage = [...(sharedDb ? ['-sharedDb'] : []), ...(dataDir ? ['-dbPath', dataDir] : ['-inMemory'])];
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const child = spawn(
    ...javaCommand(['-Xms64m', '-Xmx2g', ...javaOptions(), `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`, '-jar', join(dir, 'DynamoDBLocal.jar'), '-port', String(port), '-disableTelemetry', ...storage]),
    { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(endpoint, child, () => stderr);
  } catch (error) {
    child.kill('SIGKILL');
    if (error instanceof PortTakenError) throw error;
    throw new Error(`${(error as Error).message}\n${stderr}`);
  }
  return {
    endpoint,
    port,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 3_000).unref();
      }),
  };
};
