import { describe, expect, it } from 'vitest';
import { inkOn, ROUTE_COLOURS } from '../../../functions/routing/preview-map-style.ts';

/** Machado, Oliveira & Fernandes (2009), full severity, on linear RGB. */
const visions: Record<string, number[][]> = {
  normal: [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
  protan: [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
  deutan: [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.01182, 0.04294, 0.968881]],
  tritan: [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602], [0.004733, 0.691367, 0.3039]],
};
const linear = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
const lab = ([r, g, b]: number[]) => {
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  const [x, y, z] = [(0.4124 * r! + 0.3576 * g! + 0.1805 * b!) / 0.95047, 0.2126 * r! + 0.7152 * g! + 0.0722 * b!, (0.0193 * r! + 0.1192 * g! + 0.9505 * b!) / 1.08883];
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
};
const seen = (hex: string, vision: number[][]) => {
  const c = linear(hex);
  return lab(vision.map((row) => Math.min(1, Math.max(0, row[0]! * c[0]! + row[1]! * c[1]! + row[2]! * c[2]!))));
};
const closest = (vision: number[][]) => {
  let min = Infinity;
  for (const [i, a] of ROUTE_COLOURS.entries()) for (const b of ROUTE_COLOURS.slice(i + 1)) min = Math.min(min, Math.hypot(...seen(a, vision).map((v, k) => v - seen(b, vision)[k]!)));
  return min;
};

describe('the route colours', () => {
  it('are twelve, each pair at least 12 CIELAB units apart in normal, protan and deutan vision (and 8 in tritan)', () => {
    expect(new Set(ROUTE_COLOURS).size).toBe(12);
    for (const vision of ['normal', 'protan', 'deutan']) expect(closest(visions[vision]!), vision).toBeGreaterThanOrEqual(12);
    expect(closest(visions.tritan!)).toBeGreaterThanOrEqual(8);
  });

  it('are dark enough for a line on the map ground, lighter than the black depot, and carry readable numbers', () => {
    for (const colour of ROUTE_COLOURS) {
      const lightness = lab(linear(colour))[0]!;
      expect(lightness, colour).toBeGreaterThan(28);
      expect(lightness, colour).toBeLessThan(72);
      // The stop number's ink reaches WCAG's 3:1 for large bold text on every marker.
      const luminance = (hex: string) => { const [r, g, b] = linear(hex); return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!; };
      const [a, b] = [luminance(colour), luminance(inkOn(colour))].sort((x, y) => y - x);
      expect((a! + 0.05) / (b! + 0.05), colour).toBeGreaterThanOrEqual(3);
    }
  });
});
