import type { Texts } from './texts.ts';

const C = 120;
/** Marker distance from the centre per distance band (not to scale: bands are ordinal). */
const BAND_RADIUS = [16, 40, 62, 84, 104];
const RINGS = [28, 51, 73, 95];

const round1 = (n: number) => Math.round(n * 10) / 10;

/**
 * The vehicle seen from the destination, drawn as an inline SVG: no map tiles, nothing fetched.
 * The destination sits in the centre; the vehicle's direction and distance band come from the view.
 */
export const positionDrawing = (relative: { direction: number; band: number }, t: Texts, titleId: string, descId: string): string => {
  const angle = (relative.direction * 45 * Math.PI) / 180;
  const r = BAND_RADIUS[Math.min(relative.band, BAND_RADIUS.length - 1)];
  const x = round1(C + r * Math.sin(angle));
  const y = round1(C - r * Math.cos(angle));
  const [n, e, s, w] = t.compass;
  return [
    `<svg viewBox="0 0 240 240" role="img" aria-labelledby="${titleId} ${descId}" focusable="false">`,
    `<title id="${titleId}">${t.position}</title>`,
    `<desc id="${descId}">${t.relative(t.bands[relative.band], t.directions[relative.direction])}</desc>`,
    `<circle class="bg" cx="${C}" cy="${C}" r="116"/>`,
    ...RINGS.map((ring) => `<circle class="ring" cx="${C}" cy="${C}" r="${ring}"/>`),
    `<text class="cmp" x="${C}" y="16" text-anchor="middle">${n}</text>`,
    `<text class="cmp" x="230" y="${C + 4}" text-anchor="end">${e}</text>`,
    `<text class="cmp" x="${C}" y="234" text-anchor="middle">${s}</text>`,
    `<text class="cmp" x="10" y="${C + 4}">${w}</text>`,
    `<path class="home" d="M${C} ${C - 11}l11 10h-4v10h-5v-7h-4v7h-5v-10h-4z"/>`,
    `<circle class="halo" cx="${x}" cy="${y}" r="17"/>`,
    `<circle class="veh" cx="${x}" cy="${y}" r="9"/>`,
    '</svg>',
  ].join('');
};
