import type { FakeFault } from './types.ts';

const matches = (route: string, method: string, paths: string[]): boolean => {
  if (route === '*') return true;
  const [routeMethod, routePath = '*'] = route.trim().split(/\s+/, 2);
  if (routeMethod !== '*' && routeMethod.toUpperCase() !== method) return false;
  if (routePath === '*') return true;
  // `{id}` stands for one path segment, so 'GET /v1/documents/{id}.json' matches every document.
  const pattern = new RegExp(`^${routePath.split(/\{[^}/]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}$`);
  return paths.some((path) => pattern.test(path));
};

/** Faults wait in the order they were added; each matching request uses up one `times`. */
export class FaultTable {
  private readonly pending: { fault: FakeFault; left: number }[] = [];

  add(fault: FakeFault): void {
    if ((fault.kind === 'status' || fault.kind === 'status_after_apply') && !(fault.status && fault.status >= 400 && fault.status <= 599)) {
      throw new Error('a status fault needs status 400-599');
    }
    if (fault.kind === 'delay' && !(fault.delayMs && fault.delayMs > 0)) throw new Error('a delay fault needs delayMs');
    if (fault.kind === 'items' && !Array.isArray(fault.items)) throw new Error('an items fault needs items');
    this.pending.push({ fault, left: fault.times ?? 1 });
  }

  clear(): void {
    this.pending.length = 0;
  }

  /** The fault for this request, if any; `paths` are the names the request's path goes by. */
  take(method: string, paths: string[]): FakeFault | undefined {
    const index = this.pending.findIndex(({ fault }) => matches(fault.route, method, paths));
    if (index < 0) return undefined;
    const entry = this.pending[index];
    entry.left -= 1;
    if (entry.left <= 0) this.pending.splice(index, 1);
    return entry.fault;
  }
}
