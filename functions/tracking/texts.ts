/** The words of the tracking view and page, in Spanish (the default) and English. */
export type Lang = 'es' | 'en';

/** Picks English only when the client prefers it over Spanish (RFC 9110 quality values). */
export const languageOf = (acceptLanguage: string | undefined): Lang => {
  if (!acceptLanguage) return 'es';
  const ranked = acceptLanguage
    .split(',')
    .map((part, index) => {
      const [tag, ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag, q: q ? Number(q.slice(2)) || 0 : 1, index };
    })
    .filter((l) => l.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  const first = ranked.find((l) => l.tag.startsWith('es') || l.tag.startsWith('en'));
  return first?.tag.startsWith('en') ? 'en' : 'es';
};

export const texts = {
  es: {
    locale: 'es-CL',
    title: 'Seguimiento de tu pedido',
    order: 'Pedido',
    stateLabel: 'Estado',
    states: { pending: 'Pendiente', on_the_way: 'En camino', arriving: 'Llegando', delivered: 'Entregado', failed: 'No entregado' },
    steps: ['Confirmado', 'En camino', 'Llegando', 'Entregado'],
    eta: 'Llegada estimada',
    scheduled: (day: string) => `Entrega programada para el ${day}.`,
    awaitingPosition: 'El conductor ya salió; la hora estimada aparecerá con su próxima posición.',
    plannedPassed: 'Tu entrega viene con retraso; la hora estimada aparecerá cuando el conductor salga.',
    cancelled: 'El pedido fue cancelado y no será entregado.',
    failed: 'No pudimos entregar el pedido. La empresa se pondrá en contacto contigo.',
    deliveredAt: 'Entregado el',
    closedAt: 'Cerrado el',
    stopsBefore: 'Entregas antes de la tuya',
    driver: 'Conductor',
    position: 'Posición aproximada',
    positionUpdated: (time: string) => `Actualizada a las ${time}, con una precisión de unos 100 m.`,
    positionFallback: 'La posición del vehículo se muestra mientras va en camino.',
    you: 'Tu dirección',
    vehicle: 'Vehículo',
    directions: ['norte', 'noreste', 'este', 'sureste', 'sur', 'suroeste', 'oeste', 'noroeste'],
    compass: ['N', 'E', 'S', 'O'],
    bands: ['a menos de 500 m', 'a menos de 1 km', 'a menos de 2 km', 'a menos de 5 km', 'a más de 5 km'],
    relative: (band: string, direction: string) => `El vehículo está ${band} de tu dirección, hacia el ${direction}.`,
    refresh: (seconds: string) => `Esta página se actualiza sola cada ${seconds}.`,
    refreshNow: 'Actualizar ahora',
    seconds: (n: number) => (n % 3600 === 0 ? `${n / 3600 === 1 ? 'hora' : `${n / 3600} horas`}` : n % 60 === 0 ? `${n === 60 ? 'minuto' : `${n / 60} minutos`}` : `${n} ${n === 1 ? 'segundo' : 'segundos'}`),
    notFoundTitle: 'Enlace no disponible',
    notFound: 'Este enlace de seguimiento no existe o ya expiró. Los enlaces dejan de funcionar 7 días después de la entrega.',
    tooManyTitle: 'Demasiadas solicitudes',
    tooMany: (seconds: number) => `Vuelve a intentarlo en ${seconds} segundos.`,
  },
  en: {
    locale: 'en-GB',
    title: 'Track your order',
    order: 'Order',
    stateLabel: 'Status',
    states: { pending: 'Pending', on_the_way: 'On the way', arriving: 'Arriving', delivered: 'Delivered', failed: 'Not delivered' },
    steps: ['Confirmed', 'On the way', 'Arriving', 'Delivered'],
    eta: 'Estimated arrival',
    scheduled: (day: string) => `Delivery scheduled for ${day}.`,
    awaitingPosition: 'The driver has set off; the estimated time appears with their next position.',
    plannedPassed: 'Your delivery is running late; the estimated time appears once the driver sets off.',
    cancelled: 'The order was cancelled and will not be delivered.',
    failed: 'We could not deliver the order. The company will contact you.',
    deliveredAt: 'Delivered on',
    closedAt: 'Closed on',
    stopsBefore: 'Deliveries before yours',
    driver: 'Driver',
    position: 'Approximate position',
    positionUpdated: (time: string) => `Updated at ${time}, accurate to about 100 m.`,
    positionFallback: 'The vehicle’s position is shown while it is on the way.',
    you: 'Your address',
    vehicle: 'Vehicle',
    directions: ['north', 'north-east', 'east', 'south-east', 'south', 'south-west', 'west', 'north-west'],
    compass: ['N', 'E', 'S', 'W'],
    bands: ['less than 500 m', 'less than 1 km', 'less than 2 km', 'less than 5 km', 'more than 5 km'],
    relative: (band: string, direction: string) => `The vehicle is ${band} from your address, to the ${direction}.`,
    refresh: (seconds: string) => `This page refreshes itself every ${seconds}.`,
    refreshNow: 'Refresh now',
    seconds: (n: number) => (n % 3600 === 0 ? `${n / 3600 === 1 ? 'hour' : `${n / 3600} hours`}` : n % 60 === 0 ? `${n === 60 ? 'minute' : `${n / 60} minutes`}` : `${n} ${n === 1 ? 'second' : 'seconds'}`),
    notFoundTitle: 'Link not available',
    notFound: 'This tracking link does not exist or has expired. Links stop working 7 days after delivery.',
    tooManyTitle: 'Too many requests',
    tooMany: (seconds: number) => `Please try again in ${seconds} seconds.`,
  },
} as const;

export type Texts = (typeof texts)[Lang];
