/** Least-squares slope of values over times (units per second of `at`). */
export const slope = (points: { at: number; value: number }[]): number => {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, p) => s + p.at, 0) / n;
  const my = points.reduce((s, p) => s + p.value, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.at - mx) ** 2, 0);
  const sxy = points.reduce((s, p) => s + (p.at - mx) * (p.value - my), 0);
  return sxx === 0 ? 0 : sxy / sxx;
};

/** How much the last third of a series may sit above its middle third and still count as flat. */
export const FLAT_LIMIT = 0.02;

const mean = (points: { value: number }[]) => points.reduce((s, p) => s + p.value, 0) / Math.max(1, points.length);

/**
 * Flat: the mean of the last third of the samples is less than 2 % above the mean of the middle
 * third (the first third is warm-up, while caches and JIT fill). A leak grows steadily, so its
 * last third sits above its middle third; GC saw-teeth, and a one-off step up (the allocator
 * keeping a larger arena) followed by a plateau, do not. The least-squares slope is reported
 * beside it.
 */
export const trendOf = (points: { at: number; value: number }[]) => {
  const third = Math.floor(points.length / 3);
  const middle = mean(points.slice(third, 2 * third));
  const last = mean(points.slice(2 * third));
  const growth = middle === 0 ? 0 : (last - middle) / middle;
  return { perMinute: slope(points.slice(third)) * 60, growth, flat: growth < FLAT_LIMIT };
};
