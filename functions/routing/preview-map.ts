import { inkOn, mapTexts, routeStyle, type MapLang } from './preview-map-style.ts';

export interface MapPoint {
  latitude: number;
  longitude: number;
}
/** `detail` goes only into the marker's tooltip (the order reference, the planned arrival). */
export type MapMarker = MapPoint & { detail?: string };
export interface MapRoute {
  vehicleRouteId: string;
  distanceMeters: number;
  /** decisions 17: the legend names the vehicle (label and plate) and its leaving and return times (`HH:MM`). */
  vehicle?: { label: string | null; plate: string | null };
  leavesAt?: string;
  backAt?: string;
  stops: MapMarker[];
}
export interface PreviewMapInput {
  serviceDate: string;
  depot: MapPoint & { name: string };
  routes: MapRoute[];
  unassigned: MapMarker[];
  lang: MapLang;
}

const MAP_W = 900;
/** The map is at least this tall, and as tall as the legend beside it. */
const MIN_MAP_H = 720;
const HEADER_H = 48;
const LEGEND_W = 320;
const MARGIN = 36;
const ROW_H = 24;
/** A route's row in the legend: its line, id, vehicle, stops and km; then its times. */
const ROUTE_ROW_H = 42;
/** The legend is 320 px wide: a longer vehicle label is cut (the plate always shows). */
const MAX_LABEL_CHARS = 20;

const cut = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text);
const vehicleName = (vehicle: MapRoute['vehicle']): string =>
  vehicle ? [vehicle.label ? cut(vehicle.label, MAX_LABEL_CHARS) : null, vehicle.plate].filter(Boolean).join(' · ') : '';
/** Half the smallest span drawn, in degrees (about 550 m): one point, or all in one place, still makes a map. */
const MIN_HALF_SPAN = 0.005;
const METRES_PER_DEGREE = (Math.PI / 180) * 6_371_008.8;

/** Everything written into the document passes here: XML's five, and the characters XML 1.0 forbids. */
export const escapeXml = (text: string): string =>
  text
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
    .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

const n1 = (value: number): string => value.toFixed(1);

/** Equirectangular around the mean latitude, scaled evenly to fit the map area with a margin. */
const projection = (points: MapPoint[], mapH: number) => {
  const meanLat = points.reduce((sum, p) => sum + p.latitude, 0) / points.length;
  const kx = Math.cos((meanLat * Math.PI) / 180);
  const xs = points.map((p) => p.longitude * kx);
  const ys = points.map((p) => -p.latitude);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const halfX = Math.max((maxX - minX) / 2, MIN_HALF_SPAN);
  const halfY = Math.max((maxY - minY) / 2, MIN_HALF_SPAN);
  const scale = Math.min((MAP_W - 2 * MARGIN) / (2 * halfX), (mapH - 2 * MARGIN) / (2 * halfY));
  const [cx, cy] = [(minX + maxX) / 2, (minY + maxY) / 2];
  return {
    /** Pixels per degree of latitude, for the scale bar. */
    scale,
    at: (p: MapPoint): [number, number] => [MAP_W / 2 + (p.longitude * kx - cx) * scale, HEADER_H + mapH / 2 + (-p.latitude - cy) * scale],
  };
};

/** A round length near 140 px: 1, 2 or 5 times a power of ten metres. */
const scaleBar = (pixelsPerDegree: number, mapH: number, format: (n: number) => string): string => {
  const metresPerPixel = METRES_PER_DEGREE / pixelsPerDegree;
  const wanted = metresPerPixel * 140;
  const power = 10 ** Math.floor(Math.log10(wanted));
  const metres = [5, 2, 1].map((f) => f * power).find((m) => m <= wanted) ?? power;
  const width = metres / metresPerPixel;
  const label = metres >= 1000 ? `${format(metres / 1000)} km` : `${format(metres)} m`;
  const [x, y] = [16, HEADER_H + mapH - 18];
  return [
    `<g class="scale" aria-hidden="true"><rect x="${x - 6}" y="${y - 22}" width="${n1(width + 12)}" height="30" rx="4" fill="#ffffff" fill-opacity="0.85"/>`,
    `<path d="M${x} ${y - 6}V${y}H${n1(x + width)}V${y - 6}" fill="none" stroke="#222222" stroke-width="2"/>`,
    `<text x="${n1(x + width / 2)}" y="${y - 9}" text-anchor="middle" font-size="12" fill="#222222">${escapeXml(label)}</text></g>`,
  ].join('');
};

const northArrow = (label: string): string => {
  const [x, y] = [MAP_W - 30, HEADER_H + 18];
  return `<g class="north" aria-hidden="true"><path d="M${x} ${y}l9 24l-9 -6l-9 6z" fill="#222222"/><text x="${x}" y="${y + 40}" text-anchor="middle" font-size="13" font-weight="700" fill="#222222">${label}</text></g>`;
};

/** A house outline: no route marker is square-shouldered, so the depot stands out in any colour vision. */
const depotSymbol = (x: number, y: number, title: string, size = 1): string => {
  const d = (v: number) => n1(v * size);
  return `<g class="depot"><title>${escapeXml(title)}</title><path d="M${n1(x)} ${n1(y)}m${d(-11)} ${d(10)}v${d(-12)}l${d(11)} ${d(-11)}l${d(11)} ${d(11)}v${d(12)}z" fill="#111111" stroke="#ffffff" stroke-width="2.5" stroke-linejoin="round"/><rect x="${n1(x - 3 * size)}" y="${n1(y + 2 * size)}" width="${d(6)}" height="${d(8)}" fill="#ffffff"/></g>`;
};

const hollow = (x: number, y: number, r: number, title?: string): string =>
  `<g class="unassigned">${title ? `<title>${escapeXml(title)}</title>` : ''}<circle cx="${n1(x)}" cy="${n1(y)}" r="${r}" fill="#ffffff" stroke="#222222" stroke-width="2.5"/></g>`;

/** The legend: totals, the depot, one row per route (its line, id, vehicle, stops, km, times), the unassigned. Returns its rows and bottom. */
const legendOf = (input: PreviewMapInput, km: (metres: number) => string, count: Intl.NumberFormat): { svg: string; bottom: number } => {
  const t = mapTexts[input.lang];
  const x = MAP_W + 20;
  let y = HEADER_H + 28;
  const stopCount = input.routes.reduce((sum, r) => sum + r.stops.length, 0);
  const totalMetres = input.routes.reduce((sum, r) => sum + r.distanceMeters, 0);
  const rows = [
    `<text x="${x}" y="${y}" font-size="15" font-weight="700" fill="#111111">${escapeXml(t.summary(count.format(input.routes.length), count.format(stopCount)))}</text>`,
    `<text x="${x}" y="${y + 19}" font-size="13" fill="#3d4752">${escapeXml(t.total(km(totalMetres)))}</text>`,
  ];
  y += 52;
  rows.push(`<g class="legend-depot">${depotSymbol(x + 15, y - 4, t.depot, 0.8)}<text x="${x + 40}" y="${y}" font-size="13" fill="#111111"><tspan font-weight="700">${escapeXml(t.depot)}</tspan> ${escapeXml(input.depot.name)}</text></g>`);
  y += ROW_H;
  input.routes.forEach((route, i) => {
    const { colour, dash } = routeStyle(i);
    rows.push(
      `<g class="legend-route"><line x1="${x}" y1="${y - 4}" x2="${x + 30}" y2="${y - 4}" stroke="${colour}" stroke-width="4" stroke-linecap="round"${dash ? ` stroke-dasharray="${dash}"` : ''}/>` +
        `<text x="${x + 40}" y="${y}" font-size="13" fill="#111111"><tspan font-weight="700">${escapeXml(route.vehicleRouteId)}</tspan>${vehicleName(route.vehicle) ? ` <tspan class="legend-vehicle">${escapeXml(vehicleName(route.vehicle))}</tspan>` : ''}</text>` +
        `<text x="${x + 40}" y="${y + 17}" font-size="12" fill="#3d4752">${escapeXml(
          [t.route(route.stops.length, count.format(route.stops.length), km(route.distanceMeters)), route.leavesAt && route.backAt ? t.times(route.leavesAt, route.backAt) : undefined]
            .filter(Boolean)
            .join(' · '),
        )}</text></g>`,
    );
    y += ROUTE_ROW_H;
  });
  rows.push(`<g class="legend-unassigned">${hollow(x + 15, y - 4, 6)}<text x="${x + 40}" y="${y}" font-size="13" font-weight="700" fill="#111111">${escapeXml(t.unassigned(count.format(input.unassigned.length)))}</text></g>`);
  return { svg: `<g class="legend">${rows.join('')}</g>`, bottom: y + 16 };
};

export const renderPreviewMap = (input: PreviewMapInput): string => {
  const t = mapTexts[input.lang];
  const number = new Intl.NumberFormat(t.locale, { maximumFractionDigits: 1 });
  const count = new Intl.NumberFormat(t.locale);
  const km = (metres: number) => number.format(Math.round(metres / 100) / 10);
  const legend = legendOf(input, km, count);
  const mapH = Math.max(MIN_MAP_H, legend.bottom - HEADER_H);
  const project = projection([input.depot, ...input.routes.flatMap((r) => r.stops), ...input.unassigned], mapH);
  const stopCount = input.routes.reduce((sum, r) => sum + r.stops.length, 0);
  // Numbers stay readable at the default size; past 400 stops the markers shrink so fewer overlap.
  const radius = stopCount > 400 ? 8 : 10;
  const depot = project.at(input.depot);
  const xy = (p: MapPoint) => project.at(p).map(n1).join(',');

  // A route's way out of the depot and back is drawn thin and faint: the eye follows the stops.
  const lines = input.routes.map((route, i) => {
    const { colour, dash } = routeStyle(i);
    const [first, last] = [route.stops[0], route.stops[route.stops.length - 1]];
    const legs = first && last ? `<path class="leg" d="M${xy(input.depot)}L${xy(first)}M${xy(last)}L${xy(input.depot)}" fill="none" stroke="${colour}" stroke-width="1.5" stroke-opacity="0.55"/>` : '';
    const points = route.stops.map(xy).join(' ');
    return (
      `<g class="route" data-route="${escapeXml(route.vehicleRouteId)}">${legs}` +
      `<polyline class="halo" points="${points}" fill="none" stroke="#ffffff" stroke-width="6" stroke-linejoin="round" stroke-opacity="0.8"/>` +
      `<polyline class="path" points="${points}" fill="none" stroke="${colour}" stroke-width="3" stroke-linejoin="round" stroke-linecap="round"${dash ? ` stroke-dasharray="${dash}"` : ''}/></g>`
    );
  });

  const stops = input.routes.flatMap((route, i) => {
    const { colour } = routeStyle(i);
    const ink = inkOn(colour);
    return route.stops.map((stop, s) => {
      const [x, y] = project.at(stop);
      const n = s + 1;
      const title = [t.stop(route.vehicleRouteId, n), stop.detail].filter(Boolean).join(' · ');
      const size = n >= 100 ? radius - 1.5 : radius + 0.5;
      return `<g class="stop"><title>${escapeXml(title)}</title><circle cx="${n1(x)}" cy="${n1(y)}" r="${radius}" fill="${colour}" stroke="#ffffff" stroke-width="1.5"/><text x="${n1(x)}" y="${n1(y)}" dy="0.35em" text-anchor="middle" font-size="${size}" font-weight="700" fill="${ink}">${n}</text></g>`;
    });
  });

  // Each route's name on the map, beyond its stop farthest from the depot (usually the rim of its
  // area, where fewer stops lie): with colours repeating past twelve, the name finds the route.
  const tags = input.routes.map((route, i) => {
    const { colour } = routeStyle(i);
    const far = route.stops
      .map((stop) => project.at(stop))
      .reduce<[number, number] | undefined>((best, p) => (!best || Math.hypot(p[0] - depot[0], p[1] - depot[1]) > Math.hypot(best[0] - depot[0], best[1] - depot[1]) ? p : best), undefined);
    if (!far) return '';
    const distance = Math.hypot(far[0] - depot[0], far[1] - depot[1]);
    const [ux, uy] = distance > 0 ? [(far[0] - depot[0]) / distance, (far[1] - depot[1]) / distance] : [0, -1];
    const label = escapeXml(route.vehicleRouteId);
    const w = 10 + 7.5 * route.vehicleRouteId.length;
    const x = Math.min(Math.max(far[0] + ux * (radius + 16), w / 2 + 2), MAP_W - w / 2 - 2);
    const y = Math.min(Math.max(far[1] + uy * (radius + 12), HEADER_H + 12), HEADER_H + mapH - 12);
    return `<g class="tag"><rect x="${n1(x - w / 2)}" y="${n1(y - 10)}" width="${n1(w)}" height="20" rx="4" fill="#ffffff" stroke="${colour}" stroke-width="2"/><text x="${n1(x)}" y="${n1(y)}" dy="0.35em" text-anchor="middle" font-size="12" font-weight="700" fill="#111111">${label}</text></g>`;
  });

  const unassigned = input.unassigned.map((u) => {
    const [x, y] = project.at(u);
    return hollow(x, y, radius - 3, [t.unassignedOne, u.detail].filter(Boolean).join(' · '));
  });

  const empty =
    input.routes.length === 0
      ? `<text class="empty" x="${MAP_W / 2}" y="${HEADER_H + 40}" text-anchor="middle" font-size="16" fill="#333333">${escapeXml(t.noRoutes)}</text>`
      : '';

  const width = MAP_W + LEGEND_W;
  const height = HEADER_H + mapH;
  const title = t.title(input.serviceDate);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>\n',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="map-title map-desc" font-family="system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif">`,
    `<title id="map-title">${escapeXml(title)}</title><desc id="map-desc">${escapeXml(t.description)}</desc>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<rect x="0" y="${HEADER_H}" width="${MAP_W}" height="${mapH}" fill="#eef2f6"/>`,
    `<line x1="${MAP_W}" y1="${HEADER_H}" x2="${MAP_W}" y2="${height}" stroke="#c9d2dc"/><line x1="0" y1="${HEADER_H}" x2="${width}" y2="${HEADER_H}" stroke="#c9d2dc"/>`,
    `<text x="20" y="31" font-size="20" font-weight="700" fill="#111111">${escapeXml(title)}</text>`,
    `<g class="routes">${lines.join('')}</g>`,
    `<g class="stops">${stops.join('')}</g>`,
    `<g class="unassigned-orders">${unassigned.join('')}</g>`,
    `<g class="tags">${tags.join('')}</g>`,
    `<circle cx="${n1(depot[0])}" cy="${n1(depot[1])}" r="15" fill="#ffffff" fill-opacity="0.75"/>`,
    depotSymbol(depot[0], depot[1], `${t.depot} ${input.depot.name}`, 1.2),
    empty,
    scaleBar(project.scale, mapH, (v) => number.format(v)),
    northArrow(t.north),
    legend.svg,
    '</svg>\n',
  ].join('');
};
