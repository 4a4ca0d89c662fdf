/**
 * Chile's 16 regions as ISO 3166-2:CL codes (Ñuble, CL-NB, since 2018). Vehicles and tenant
 * settings name a region by one of these (decisions 11 and 13).
 */
export const chileRegions = {
  'CL-AI': 'Aysén del General Carlos Ibáñez del Campo',
  'CL-AN': 'Antofagasta',
  'CL-AP': 'Arica y Parinacota',
  'CL-AR': 'La Araucanía',
  'CL-AT': 'Atacama',
  'CL-BI': 'Biobío',
  'CL-CO': 'Coquimbo',
  'CL-LI': 'Libertador General Bernardo O’Higgins',
  'CL-LL': 'Los Lagos',
  'CL-LR': 'Los Ríos',
  'CL-MA': 'Magallanes y de la Antártica Chilena',
  'CL-ML': 'Maule',
  'CL-NB': 'Ñuble',
  'CL-RM': 'Región Metropolitana de Santiago',
  'CL-TA': 'Tarapacá',
  'CL-VS': 'Valparaíso',
} as const;

export type ChileRegion = keyof typeof chileRegions;
export const chileRegionCodes = Object.keys(chileRegions) as ChileRegion[];

export const isChileRegion = (code: string): code is ChileRegion => Object.hasOwn(chileRegions, code);
