import { describe, expect, it } from 'vitest';
import { renderPreviewMap, type MapRoute, type PreviewMapInput } from '../../../functions/routing/preview-map.ts';
import { ROUTE_COLOURS } from '../../../functions/routing/preview-map-style.ts';
import { allElements, byClass, parseXml, textOf, type XmlElement } from './xml.ts';

const depot = { name: 'Bodega Quilicura', latitude: -33.36, longitude: -70.73 };

const route = (id: string, points: [number, number][], km = 12.3): MapRoute => ({
  vehicleRouteId: id,
  distanceMeters: km * 1000,
  stops: points.map(([latitude, longitude], i) => ({ latitude, longitude, detail: `PED-${id}-${i + 1} · 09:${10 + i}` })),
});

const input = (overrides: Partial<PreviewMapInput> = {}): PreviewMapInput => ({
  serviceDate: '2026-11-23',
  depot,
  routes: [
    { ...route('V1', [[-33.40, -70.60], [-33.41, -70.62], [-33.42, -70.64]], 23.46), vehicle: { label: 'Camión 1', plate: 'KXPT10' }, leavesAt: '08:00', backAt: '11:45' },
    { ...route('V2', [[-33.50, -70.70], [-33.52, -70.71]], 8), vehicle: { label: 'Furgón refrigerado de reparto nocturno', plate: 'LRHB22' }, leavesAt: '09:15', backAt: '10:30' },
    route('V3', [[-33.45, -70.80]], 3.2),
  ],
  unassigned: [{ latitude: -33.47, longitude: -70.66, detail: 'PED-9' }, { latitude: -33.30, longitude: -70.50 }],
  lang: 'es',
  ...overrides,
});

const render = (overrides: Partial<PreviewMapInput> = {}): { svg: string; root: XmlElement } => {
  const svg = renderPreviewMap(input(overrides));
  return { svg, root: parseXml(svg) };
};

const circleOf = (group: XmlElement) => group.children.find((c) => c.name === 'circle')!;
const numbersOf = (root: XmlElement) => byClass(root, 'stop').map((g) => g.children.find((c) => c.name === 'text')!.text);
const coordinates = (root: XmlElement) =>
  allElements(root).flatMap((e) => [e.attributes.cx, e.attributes.cy, e.attributes.x, e.attributes.y, ...(e.attributes.points ?? '').split(/[ ,]/)].filter((a) => a !== undefined && a !== ''));

describe('the preview map renderer', () => {
  it('writes a well-formed SVG document that says what it shows', () => {
    const { svg, root } = render();
    expect(svg.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(root.name).toBe('svg');
    expect(root.attributes).toMatchObject({ xmlns: 'http://www.w3.org/2000/svg', role: 'img', 'aria-labelledby': 'map-title map-desc' });
    expect(allElements(root).find((e) => e.attributes.id === 'map-title')?.text).toBe('Vista previa de rutas · 2026-11-23');
    for (const value of coordinates(root)) expect(Number.isFinite(Number(value)), value).toBe(true);
  });

  it('draws one line per route, its stops numbered in order, and a hollow marker per unassigned order', () => {
    const { root } = render();
    const routes = byClass(root, 'route');
    expect(routes.map((g) => g.attributes['data-route'])).toEqual(['V1', 'V2', 'V3']);
    for (const [i, g] of routes.entries()) {
      const paths = g.children.filter((c) => c.name === 'polyline' && c.attributes.class === 'path');
      expect(paths).toHaveLength(1);
      expect(paths[0]!.attributes.points!.split(' ')).toHaveLength([3, 2, 1][i]!);
      expect(paths[0]!.attributes.stroke).toBe(ROUTE_COLOURS[i]);
    }
    expect(numbersOf(root)).toEqual(['1', '2', '3', '1', '2', '1']);
    const hollow = byClass(byClass(root, 'unassigned-orders')[0]!, 'unassigned').map(circleOf);
    expect(hollow).toHaveLength(2);
    for (const circle of hollow) expect(circle.attributes.fill).toBe('#ffffff');
    // Each route's name sits on the map beside it, inside the map area.
    expect(byClass(root, 'tag').map(textOf)).toEqual(['V1', 'V2', 'V3']);
    for (const rect of byClass(root, 'tag').map((g) => g.children[0]!)) {
      expect(Number(rect.attributes.x)).toBeGreaterThanOrEqual(0);
      expect(Number(rect.attributes.x) + Number(rect.attributes.width)).toBeLessThanOrEqual(900);
    }
    // The depot is a shape of its own on the map (and again in the legend).
    expect(root.children.filter((c) => c.attributes.class === 'depot')).toHaveLength(1);
  });

  it('puts north up and east right, everything inside the map area', () => {
    const { root } = render({ routes: [route('V1', [[-33.40, -70.60], [-33.50, -70.60], [-33.50, -70.70]])], unassigned: [] });
    const [north, south, west] = byClass(root, 'stop').map(circleOf).map((c) => [Number(c.attributes.cx), Number(c.attributes.cy)] as const);
    expect(north![1]).toBeLessThan(south![1]);
    expect(west![0]).toBeLessThan(south![0]);
    for (const [x, y] of [north!, south!, west!]) {
      expect(x).toBeGreaterThan(0);
      expect(x).toBeLessThan(900);
      expect(y).toBeGreaterThan(48);
      expect(y).toBeLessThan(48 + 720);
    }
  });

  it('lists each route in the legend with its vehicle, stops, kilometres and times, and the unassigned count, in Spanish', () => {
    const { root } = render();
    const legend = textOf(byClass(root, 'legend')[0]!);
    const rows = byClass(root, 'legend-route').map((row) => row.children.filter((c) => c.name === 'text').map(textOf));
    expect(legend).toContain('3 rutas · 6 paradas');
    expect(rows).toEqual([
      ['V1 Camión 1 · KXPT10', '3 paradas · 23,5 km · sale 08:00 · vuelve 11:45'],
      // A long label is cut to fit the legend's width; the plate stays whole.
      ['V2 Furgón refrigerado… · LRHB22', '2 paradas · 8 km · sale 09:15 · vuelve 10:30'],
      ['V3', '1 parada · 3,2 km'],
    ]);
    expect(legend).toContain('Sin asignar (2)');
    expect(legend).toContain('Depósito Bodega Quilicura');
  });

  it('speaks English when asked', () => {
    const legend = textOf(byClass(render({ lang: 'en' }).root, 'legend')[0]!);
    expect(byClass(render({ lang: 'en' }).root, 'legend-route').map((row) => textOf(row.children.filter((c) => c.name === 'text')[1]!))[0]).toBe('3 stops · 23.5 km · leaves 08:00 · back 11:45');
    expect(legend).toContain('Unassigned (2)');
  });

  it('names orders only in tooltips, by reference, and loads nothing from anywhere', () => {
    const { svg, root } = render();
    expect(byClass(root, 'stop')[0]!.children[0]).toMatchObject({ name: 'title', text: 'V1, parada 1 · PED-V1-1 · 09:10' });
    const names = new Set(allElements(root).map((e) => e.name));
    for (const forbidden of ['script', 'image', 'foreignObject', 'use', 'a', 'style', 'link']) expect(names.has(forbidden), forbidden).toBe(false);
    for (const e of allElements(root)) {
      for (const [name, value] of Object.entries(e.attributes)) {
        expect(name).not.toMatch(/href|^on/i);
        expect(value).not.toMatch(/url\(/);
      }
    }
    expect(svg.match(/https?:\/\/[^\s"']*/g)).toEqual(['http://www.w3.org/2000/svg']);
  });

  it('escapes every text it writes', () => {
    const hostile = `<script>alert("x")</script> & 'Bodega' \u0007]]>`;
    const { svg, root } = render({
      depot: { ...depot, name: hostile },
      routes: [{ ...route('V"><g onload="x', [[-33.4, -70.6]]), stops: [{ latitude: -33.4, longitude: -70.6, detail: 'A&B <c>' }] }],
    });
    expect(allElements(root).some((e) => e.name === 'script' || e.name === 'g' && 'onload' in e.attributes)).toBe(false);
    expect(textOf(byClass(root, 'legend-depot')[0]!)).toContain(`<script>alert("x")</script> & 'Bodega' ]]>`);
    expect(byClass(root, 'route')[0]!.attributes['data-route']).toBe('V"><g onload="x');
    expect(byClass(root, 'stop')[0]!.children[0]!.text).toContain('A&B <c>');
    expect(svg).not.toContain('\u0007');
  });

  it('still draws a map for one point, for points all in one place, and for no routes', () => {
    const alone = render({ routes: [], unassigned: [] });
    expect(textOf(alone.root)).toContain('Ninguna ruta');
    const here: [number, number] = [depot.latitude, depot.longitude];
    const piled = render({ routes: [route('V1', [here, here, here])], unassigned: [{ ...depot }] });
    for (const { root } of [alone, piled]) {
      for (const value of coordinates(root)) expect(Number.isFinite(Number(value)), value).toBe(true);
      expect(byClass(root, 'scale')).toHaveLength(1);
    }
    expect(numbersOf(piled.root)).toEqual(['1', '2', '3']);
  });

  it('gives 40 routes and 1,000 stops twelve colours, then the same colours dashed, and grows to hold the legend', () => {
    const routes = Array.from({ length: 40 }, (_, r) => route(`V${r + 1}`, Array.from({ length: 25 }, (_, s): [number, number] => [-33.3 - r * 0.005, -70.5 - s * 0.004])));
    const { root } = render({ routes, unassigned: [] });
    const paths = byClass(root, 'path');
    expect(paths).toHaveLength(40);
    expect(new Set(paths.slice(0, 12).map((p) => p.attributes.stroke)).size).toBe(12);
    expect(paths[12]!.attributes.stroke).toBe(paths[0]!.attributes.stroke);
    expect(paths[0]!.attributes['stroke-dasharray']).toBeUndefined();
    expect(paths[12]!.attributes['stroke-dasharray']).toBeDefined();
    expect(paths[24]!.attributes['stroke-dasharray']).not.toBe(paths[12]!.attributes['stroke-dasharray']);
    expect(byClass(root, 'stop')).toHaveLength(1000);
    expect(numbersOf(root).slice(0, 25)).toEqual(Array.from({ length: 25 }, (_, i) => String(i + 1)));
    expect(byClass(root, 'legend-route')).toHaveLength(40);
    const lastRow = byClass(root, 'legend-route')[39]!.children.find((c) => c.name === 'text')!;
    expect(Number(lastRow.attributes.y)).toBeLessThan(Number(root.attributes.height));
  });
});
