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

/** Growth allowed over the measured window, as a share of the mean, before a series counts as growing. */
export const FLAT_LIMIT = 0.05;

/**
 * Flat: after the warm-up (the first fifth of the samples, while caches and JIT fill), the fitted
 * line grows by less than 5 % of the series' mean over the rest of the window. A leak grows
 * steadily and fails this; GC saw-teeth and a one-off step up at the start do not.
 */
export const trendOf = (points: { at: number; value: number }[]) => {
  const steady = points.slice(Math.floor(points.length / 5));
  const perSecond = slope(steady);
  const mean = steady.reduce((s, p) => s + p.value, 0) / Math.max(1, steady.length);
  const window = steady.length > 1 ? steady.at(-1)!.at - steady[0].at : 0;
  const growth = mean === 0 ? 0 : (perSecond * window) / mean;
  return { perMinute: perSecond * 60, growth, flat: growth < FLAT_LIMIT };
};
