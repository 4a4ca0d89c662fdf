import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The project's own import graph: for each .ts/.mjs file below the given folders, the files it
 * imports by a relative path (static imports, re-exports, `import type`, `import()` and module
 * augmentations alike: a type-only import is still an arrow between two files, though erased at
 * run time).
 */
export const importGraph = (root: string, folders: string[]): Map<string, string[]> => {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(ts|mts|mjs)$/.test(name) && !name.endsWith('.d.ts')) files.push(path);
    }
  };
  for (const folder of folders) walk(join(root, folder));
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  // `from '...'` ends every static import and re-export; `import('...')` is a dynamic import, a
  // bare `import '...'` one for its effects, and `declare module '...'` adds to another file's types.
  const specifiers = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+|\bdeclare\s+module\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;
  for (const file of files) {
    // Comments may quote an import; they are not one.
    const source = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
    const targets = new Set<string>();
    for (const match of source.matchAll(specifiers)) {
      const target = resolve(dirname(file), match[1]!);
      if (known.has(target)) targets.add(relative(root, target));
    }
    graph.set(relative(root, file), [...targets].sort());
  }
  return graph;
};

/**
 * The graph's circles: each strongly connected component of more than one file (or a file that
 * imports itself), as its files sorted, the components sorted by their first file.
 */
export const importCircles = (graph: Map<string, string[]>): string[][] => {
  // Tarjan's algorithm, iterative so that a deep chain cannot overflow the stack.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const circles: string[][] = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; edge: number }> = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1 || (graph.get(frame.node) ?? []).includes(frame.node)) circles.push(component.sort());
      }
    }
  }
  return circles.sort((a, b) => a[0]!.localeCompare(b[0]!));
};
