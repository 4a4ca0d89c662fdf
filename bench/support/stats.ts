/** Percentiles over measured milliseconds (nearest-rank). */
export const percentile = (samples: number[], p: number): number => {
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
};

export const median = (samples: number[]): number => percentile(samples, 50);

export const fmt = (ms: number): string => ms.toFixed(2);

export const timed = async (fn: () => Promise<unknown>): Promise<number> => {
  const start = performance.now();
  await fn();
  return performance.now() - start;
};

/**
 * Runs the path and its floor in alternating blocks, so that drift of the machine (JIT, GC,
 * DynamoDB Local's own warm-up) lands on both sides equally.
 */
export const compare = async (
  rounds: number,
  block: number,
  path: (i: number) => Promise<unknown>,
  floor: (i: number) => Promise<unknown>,
): Promise<{ path: number[]; floor: number[] }> => {
  const result = { path: [] as number[], floor: [] as number[] };
  let i = 0;
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < block; k++) result.path.push(await timed(() => path(i++)));
    for (let k = 0; k < block; k++) result.floor.push(await timed(() => floor(i++)));
  }
  return result;
};
