/**
 * The 16 regions of Chile by their ISO 3166-2:CL codes (Ñuble, CL-NB, since 2018). A tenant's
 * `region` setting and a vehicle's `region` name one of these.
 */
export const chileanRegions = [
  'CL-AP', // Arica y Parinacota
  'CL-TA', // Tarapacá
  'CL-AN', // Antofagasta
  'CL-AT', // Atacama
  'CL-CO', // Coquimbo
  'CL-VS', // Valparaíso
  'CL-RM', // Región Metropolitana de Santiago
  'CL-LI', // Libertador General Bernardo O'Higgins
  'CL-ML', // Maule
  'CL-NB', // Ñuble
  'CL-BI', // Biobío
  'CL-AR', // La Araucanía
  'CL-LR', // Los Ríos
  'CL-LL', // Los Lagos
  'CL-AI', // Aysén del General Carlos Ibáñez del Campo
  'CL-MA', // Magallanes y de la Antártica Chilena
] as const;
export type ChileanRegion = (typeof chileanRegions)[number];

export const isChileanRegion = (code: string): code is ChileanRegion => (chileanRegions as readonly string[]).includes(code);
