import { createServer, type Server } from 'node:http';
import { startDynamoDbLocal, type DynamoDbLocal } from '../../infra/local/dynamodb-local.ts';
import { processCpuSeconds } from './file-cpu.ts';

/** What a test file gets for its stack: a DynamoDB Local no other file uses while it holds it. */
export interface DynamoLease {
  endpoint: string;
  pid: number;
}

interface Instance {
  local: DynamoDbLocal;
  files: number;
  cpuAtStart: number;
  cpuAtLease: number;
}

/**
 * DynamoDB Locals handed to one test file at a time and started again after many (docs/testing.md).
 * A start costs ~1.5-2.5 s of CPU, and a JVM that has served a few files answers at about half the
 * CPU of a fresh one. Each file has a database of its own inside it (its own access key,
 * test/support/file-database-setup.ts), so its writes do not read past the stream records of the
 * files before it, as they did in one shared database (a put on a fresh instance's 7th table cost
 * 4-8 times one on its first). An instance is still replaced after `maxFiles` files or
 * `maxCpuSeconds` of its CPU, to bound its memory; a fresh one is started while the workers run.
 */
export class DynamoPool {
  private readonly idle: Instance[] = [];
  private readonly starting = new Set<Promise<Instance>>();
  private readonly waiters: { resolve: (instance: Instance) => void; reject: (error: Error) => void }[] = [];
  private readonly leased = new Map<string, Instance>();
  private readonly stopping = new Set<Promise<void>>();
  private server?: Server;
  private closed = false;

  constructor(private readonly limits: { maxFiles: number; maxCpuSeconds: number; spares: number }) {}

  /** Starts the spares and the HTTP endpoint the workers lease through; returns its URL. */
  async listen(): Promise<string> {
    this.topUp();
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const answer = req.url === '/lease' ? this.lease() : req.url === '/release' ? this.release(JSON.parse(body).endpoint as string) : Promise.reject(new Error(`no route ${req.url}`));
        answer.then(
          (value) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value ?? {})),
          (error: Error) => res.writeHead(500).end(error.message),
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as { port: number };
    return `http://127.0.0.1:${port}`;
  }

  async lease(): Promise<DynamoLease> {
    const instance = await new Promise<Instance>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.handOut();
      // Those still waiting get the instances starting now; start more only for the rest.
      while (this.waiters.length > this.starting.size) this.spare();
    });
    this.leased.set(instance.local.endpoint, instance);
    instance.cpuAtLease = processCpuSeconds(instance.local.pid) ?? 0;
    // Ready for the next file while this one runs.
    this.topUp();
    return { endpoint: instance.local.endpoint, pid: instance.local.pid };
  }

  /** The file is done with it: kept for the next file, or stopped and replaced. Returns the file's share of its CPU. */
  async release(endpoint: string): Promise<{ cpuSeconds: number | null }> {
    const instance = this.leased.get(endpoint);
    if (!instance) return { cpuSeconds: null };
    this.leased.delete(endpoint);
    instance.files++;
    const cpu = processCpuSeconds(instance.local.pid);
    if (cpu !== null && !this.closed && instance.files < this.limits.maxFiles && cpu - instance.cpuAtStart < this.limits.maxCpuSeconds) this.ready(instance);
    else {
      this.retire(instance);
      this.topUp();
    }
    return { cpuSeconds: cpu === null ? null : cpu - instance.cpuAtLease };
  }

  async stop(): Promise<void> {
    this.closed = true;
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    // Those still starting stop as they come up (spare()).
    await Promise.allSettled([...this.starting]);
    for (const instance of [...this.idle.splice(0), ...this.leased.values()]) this.retire(instance);
    await Promise.all([...this.stopping]);
  }

  /** `spares` instances idle or starting, for the files to come. */
  private topUp(): void {
    while (!this.closed && this.idle.length + this.starting.size < this.limits.spares) this.spare();
  }

  private spare(): void {
    const started = startDynamoDbLocal({ sharedDb: false }).then((local) => {
      const cpu = processCpuSeconds(local.pid) ?? 0;
      return { local, files: 0, cpuAtStart: cpu, cpuAtLease: cpu };
    });
    this.starting.add(started);
    started.then(
      (instance) => {
        this.starting.delete(started);
        if (this.closed) this.retire(instance);
        else this.ready(instance);
      },
      (error: Error) => {
        this.starting.delete(started);
        // A file waiting for it fails with the reason, as its own start would have.
        this.waiters.shift()?.reject(error);
      },
    );
  }

  private ready(instance: Instance): void {
    this.idle.push(instance);
    this.handOut();
  }

  /** The instance that has served the most files first: its JVM has compiled the most of what a file needs. */
  private handOut(): void {
    while (this.waiters.length > 0 && this.idle.length > 0) {
      const warmest = this.idle.reduce((best, instance, i) => (instance.files > this.idle[best]!.files ? i : best), 0);
      this.waiters.shift()!.resolve(this.idle.splice(warmest, 1)[0]!);
    }
  }

  private retire(instance: Instance): void {
    const stopped = instance.local.stop().finally(() => this.stopping.delete(stopped));
    this.stopping.add(stopped);
  }
}
