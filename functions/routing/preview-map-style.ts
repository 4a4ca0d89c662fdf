/**
 * Colours and words of the preview's picture. The twelve colours were picked from Okabe & Ito's,
 * Paul Tol's and CARTO's colour-blind-safe sets (only those with CIELAB lightness 28-72: dark
 * enough for a 3 px line on the light ground, lighter than the black depot) to keep the smallest
 * CIELAB distance between any two as large as possible under normal, protan and deutan vision
 * (Machado 2009 simulation, full severity): 15.0, against 4.3 for Okabe & Ito plus Tol's muted
 * set; 10.8 under tritan vision. Their order puts the most distinct first. Route 13 takes colour
 * 1 again, dashed.
 */
export const ROUTE_COLOURS = [
  '#0077BB', // blue
  '#E68310', // orange
  '#EE6677', // salmon red
  '#225522', // dark green
  '#33BBEE', // cyan
  '#AA3377', // wine
  '#228833', // green
  '#CC79A7', // pink
  '#80BA5A', // light green
  '#994455', // dusty red
  '#7F3C8D', // purple
  '#11A579', // teal
] as const;

/** Solid for the first twelve routes, then three dash patterns an eye tells apart at 3 px. */
export const DASHES = ['', '12 6', '3 5', '14 5 3 5'] as const;

export const routeStyle = (index: number) => ({
  colour: ROUTE_COLOURS[index % ROUTE_COLOURS.length]!,
  dash: DASHES[Math.floor(index / ROUTE_COLOURS.length) % DASHES.length]!,
});

/** Black or white numbers, whichever reads better on the marker (WCAG relative luminance). */
export const inkOn = (hex: string): string => {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  return (luminance + 0.05) / 0.05 > 1.05 / (luminance + 0.05) ? '#111111' : '#ffffff';
};

export type MapLang = 'es' | 'en';

export const mapTexts = {
  es: {
    locale: 'es-CL',
    title: (date: string) => `Vista previa de rutas · ${date}`,
    summary: (routes: string, stops: string) => `${routes} rutas · ${stops} paradas`,
    total: (km: string) => `${km} km en total`,
    route: (stops: number, formatted: string, km: string) => `${formatted} ${stops === 1 ? 'parada' : 'paradas'} · ${km} km`,
    stop: (route: string, n: number) => `${route}, parada ${n}`,
    times: (leaves: string, back: string) => `sale ${leaves} · vuelve ${back}`,
    unassigned: (n: string) => `Sin asignar (${n})`,
    unassignedOne: 'Pedido sin asignar',
    depot: 'Depósito',
    north: 'N',
    noRoutes: 'Ninguna ruta: ningún pedido cupo en los vehículos.',
    description: 'Mapa de la vista previa: el depósito, cada ruta como línea de su color con sus paradas numeradas en orden, y los pedidos sin asignar como círculos vacíos.',
  },
  en: {
    locale: 'en-GB',
    title: (date: string) => `Route preview · ${date}`,
    summary: (routes: string, stops: string) => `${routes} routes · ${stops} stops`,
    total: (km: string) => `${km} km in all`,
    route: (stops: number, formatted: string, km: string) => `${formatted} ${stops === 1 ? 'stop' : 'stops'} · ${km} km`,
    stop: (route: string, n: number) => `${route}, stop ${n}`,
    times: (leaves: string, back: string) => `leaves ${leaves} · back ${back}`,
    unassigned: (n: string) => `Unassigned (${n})`,
    unassignedOne: 'Unassigned order',
    depot: 'Depot',
    north: 'N',
    noRoutes: 'No routes: no order fitted the vehicles.',
    description: 'Map of the preview: the depot, each route as a line of its own colour with its stops numbered in order, and unassigned orders as hollow circles.',
  },
} as const;
