import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { importCircles, importGraph } from './import-graph.ts';

const root = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * Imports point down a floor (docs: the guide's "Style"): two files that import each other, even
 * through others or by types only, say a boundary is in the wrong place. Issue 37 turned the
 * circles of orders, the port wrappers, the chaos run, the guides' look-up and the billing port's
 * shapes into one-way arrows; this keeps it so.
 */
describe('the import graph of functions/, shared/, infra/ and bench/', () => {
  it('has no circles', () => {
    const graph = importGraph(root, ['functions', 'shared', 'infra', 'bench']);
    // The scan found the project's files, not an empty folder.
    expect(graph.size).toBeGreaterThan(300);
    expect(importCircles(graph).map((circle) => circle.join(' <-> '))).toEqual([]);
  });
});

describe('the circle finder', () => {
  const dir = mkdtempSync(join(tmpdir(), 'import-circles-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (path: string, source: string) => {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), source);
  };

  it('finds a circle through three files, one arrow a type-only import and one a re-export', () => {
    write('a/one.ts', "import { two } from './two.ts';\nexport const one = two;\n");
    write('a/two.ts', "export { three as two } from '../b/three.ts';\n");
    write('b/three.ts', "import type { One } from '../a/four.ts';\nexport const three = 3;\n");
    write('a/four.ts', "import { one } from './one.ts';\nexport type One = typeof one;\n");
    // A comment that quotes an import, and a file that is only imported, make no circle.
    write('a/five.ts', "// import { one } from './one.ts';\nimport { three } from '../b/three.ts';\nexport const five = three;\n");
    expect(importCircles(importGraph(dir, ['a', 'b']))).toEqual([['a/four.ts', 'a/one.ts', 'a/two.ts', 'b/three.ts']]);
  });

  it('finds a module augmentation and a dynamic import as arrows', () => {
    write('c/hook.ts', "export interface Kinds {}\nexport const load = () => import('./port.ts');\n");
    write('c/port.ts', "declare module './hook.ts' {\n  interface Kinds { port: string }\n}\nexport const port = 1;\n");
    expect(importCircles(importGraph(dir, ['c']))).toEqual([['c/hook.ts', 'c/port.ts']]);
  });
});
