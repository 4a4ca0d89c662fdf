/**
 * Keyword tables, already folded (lower case, no accents). Phrases are space
 * separated and match whole consecutive tokens.
 *
 * Weights: 3 = enough on its own ("bencina"), 2 = needs any other hint such as a
 * vehicle being named ("donde"), 1 = only tips a balance ("seguro" also means
 * "sure"). A topic is accepted from 3 points; naming a vehicle or the fleet is
 * worth 1 point (see kind.ts).
 */

export const topicKinds = ['care', 'fuel', 'speed', 'idle', 'outside', 'stops', 'where'] as const;
export type TopicKind = (typeof topicKinds)[number];
/** Signals that do not decide a kind alone but shape week/month/today. */
export type AuxSignal = 'activity' | 'week' | 'month' | 'day' | 'fleet';
export type Signal = TopicKind | AuxSignal;

type Table = Partial<Record<1 | 2 | 3, string[]>>;

export const vocabulary: Record<Signal, Table> = {
  fuel: {
    3: ['combustible', 'bencina', 'petroleo', 'diesel', 'gasolina', 'litros', 'litro', 'lts', 'rendimiento',
      'estanque', 'rinde', 'rindio', 'rendir', 'km por litro', 'kilometros por litro', 'km l', 'kml', 'cargas de combustible', 'carga de combustible',
      'fuel', 'gasoline', 'petrol', 'refuel', 'refuels', 'refueled', 'refuelled', 'refueling', 'refuelling',
      'mpg', 'liters', 'litres', 'liter', 'litre', 'gallons', 'fuel efficiency', 'fuel consumption', 'gas mileage'],
    2: ['consumo', 'consumio', 'consume', 'consumido', 'tanque', 'cargo bencina', 'echo bencina', 'copec', 'nafta',
      'gas', 'consumption', 'consumed', 'tank', 'fill up', 'filled up', 'fuelled', 'fueled', 'burned'],
    1: ['gasto', 'gastado', 'cargas', 'carga', 'cargo', 'spend', 'spent'],
  },
  where: {
    3: ['ubicacion', 'ubicaciones', 'ubicado', 'ubicada', 'ubicados', 'ubicar', 'localizacion', 'localizar',
      'posicion', 'en que parte', 'por donde anda', 'por donde va', 'ultima posicion', 'coordenadas',
      'whereabouts', 'location', 'locations', 'locate', 'located', 'coordinates', 'last known position', 'gps'],
    2: ['donde', 'adonde', 'where', 'mapa', 'map', 'position', 'anda', 'andan', 'esta ahora', 'right now', 'currently'],
    1: ['direccion', 'address', 'find', 'track', 'ahora'],
  },
  outside: {
    3: ['fuera de horario', 'fuera del horario', 'fuera de hora', 'fuera de horas', 'fuera de turno',
      'fuera del horario laboral', 'fuera de la jornada', 'de noche', 'en la noche', 'por la noche', 'noches', 'madrugada',
      'fin de semana', 'fines de semana', 'findesemana', 'finde', 'uso no autorizado', 'sin autorizacion',
      'after hours', 'afterhours', 'off hours', 'out of hours', 'outside working hours', 'outside business hours',
      'outside office hours', 'outside hours', 'outside of working hours', 'weekend', 'weekends', 'overnight',
      'at night', 'unauthorized', 'unauthorised', 'off duty', 'uso personal', 'personal use', 'after work'],
    2: ['noche', 'night', 'nocturno', 'nocturna', 'feriado', 'feriados', 'holiday', 'holidays', 'horario laboral',
      'working hours', 'business hours', 'domingos', 'sundays', 'sabados', 'saturdays'],
    1: ['horario', 'turno', 'hours', 'outside', 'fuera'],
  },
  speed: {
    3: ['velocidad', 'velocidades', 'exceso de velocidad', 'excesos de velocidad', 'km h', 'kmh', 'kph', 'mph',
      'speed', 'speeding', 'speeds', 'sped', 'how fast', 'top speed', 'speed limit', 'muy rapido', 'too fast'],
    2: ['exceso', 'excesos', 'rapido', 'rapida', 'fast', 'velocity', 'limite', 'acelero', 'pisando'],
    1: ['maxima', 'maximum', 'corriendo', 'corrio', 'limit'],
  },
  stops: {
    3: ['paradas', 'parada', 'detenciones', 'entregas', 'despachos', 'cuantas veces paro', 'cuantas veces se detuvo',
      'stops', 'deliveries', 'delivered', 'drop offs', 'dropoffs', 'how many stops', 'puntos de entrega', 'repartos'],
    2: ['entrega', 'entrego', 'entregados', 'entregadas', 'entregaron', 'despacho', 'despacharon', 'pedidos',
      'visitas', 'visito', 'paro', 'se detuvo', 'se detiene', 'paro en', 'stop', 'stopped', 'delivery', 'drops',
      'visits', 'visited', 'repartio', 'reparto'],
    1: ['clientes', 'orders', 'customers', 'pedido', 'detuvo'],
  },
  idle: {
    3: ['ralenti', 'idle', 'idling', 'idled', 'motor encendido', 'motor prendido', 'motor en marcha', 'tiempo detenido',
      'tiempo parado', 'sin moverse', 'tiempo muerto', 'engine on', 'engine running', 'engine idling', 'standing still',
      'stationary', 'motor andando', 'con el motor', 'detenido con', 'parado con'],
    2: ['encendido', 'prendido', 'detenido', 'detenida', 'parado', 'parada con', 'quieto', 'stood', 'engine'],
    1: ['motor', 'tiempo'],
  },
  care: {
    3: ['mantencion', 'mantenciones', 'mantenimiento', 'mantenimientos', 'revision tecnica', 'revisiones tecnicas',
      'permiso de circulacion', 'permisos de circulacion', 'soap', 'seguro obligatorio', 'cambio de aceite', 'prt',
      'vencimiento', 'vencimientos', 'por vencer', 'maintenance', 'insurance', 'oil change', 'technical inspection',
      'registration renewal', 'documentos', 'documents', 'paperwork', 'servicing'],
    2: ['revision', 'permiso', 'circulacion', 'service', 'aceite', 'vence', 'vencen', 'vencido', 'vencida', 'vencidos',
      'expira', 'expiran', 'caduca', 'papeles', 'taller', 'neumaticos', 'frenos', 'reparacion', 'renovar', 'oil',
      'expire', 'expires', 'expiring', 'expired', 'expiry', 'registration', 'inspection', 'workshop', 'tires',
      'tyres', 'brakes', 'repair', 'renew', 'renewal', 'due for', 'overdue', 'afinamiento', 'tecnica', 'pendientes'],
    1: ['seguro', 'servicio', 'due', 'pendiente', 'licencia', 'license'],
  },
  activity: {
    3: ['km', 'kms', 'kilometros', 'kilometraje', 'recorrido', 'recorridos', 'recorrio', 'distancia', 'actividad',
      'resumen', 'como le fue', 'kilometers', 'kilometres', 'miles', 'mileage', 'distance', 'activity', 'summary',
      'travelled', 'traveled', 'what did', 'recap', 'overview'],
    2: ['hizo', 'hicieron', 'anduvo', 'andado', 'recorrer', 'recorrida', 'recorrieron', 'movio', 'movimientos',
      'movimiento', 'viajes', 'viaje', 'trabajo', 'trabajaron', 'manejo', 'condujo', 'reporte', 'informe',
      'did', 'drove', 'driven', 'drive', 'trips', 'trip', 'worked', 'report', 'how much', 'cuanto anduvo'],
    1: ['uso', 'usaron', 'used', 'done', 'doing', 'hecho'],
  },
  week: {
    3: ['semana', 'semanal', 'semanales', 'week', 'weekly', 'ultimos 7 dias', 'last 7 days', 'past 7 days'],
  },
  month: {
    3: ['mes', 'mensual', 'mensuales', 'month', 'monthly', 'ultimos 30 dias', 'last 30 days', 'past 30 days'],
  },
  day: {
    3: ['hoy', 'today', 'hoy dia', 'diario', 'diaria', 'daily', 'jornada', 'del dia', 'en el dia'],
  },
  fleet: {
    1: ['camion', 'camiones', 'camioneta', 'camionetas', 'furgon', 'furgones', 'movil', 'moviles', 'vehiculo',
      'vehiculos', 'flota', 'patente', 'patentes', 'auto', 'autos', 'unidad', 'unidades', 'coche', 'coches',
      'truck', 'trucks', 'van', 'vans', 'vehicle', 'vehicles', 'fleet', 'car', 'cars', 'pickup', 'plate'],
  },
};

/**
 * Ordinary words that must never be "corrected" into a keyword: "pasado" is one
 * edit from "parado", "coche" from "noche", "libro" from "litro". The four-letter
 * ones are five-letter keywords with a letter missing ("toda"/"today", "here"/"where").
 */
export const protectedWords = new Set(`
a al algo alguna algun alguno ante antes aqui asi ayer anteayer antier anoche aun bien buen buenas buenos cada casa
como con cual cuales cuando cuanta cuantas cuanto cuantos de del desde dia dias dice donde dos el ella ellos en entre
era es esa ese eso esta estaba estado estan estas este esto estos estuvo fue fueron gracias ha hace hacer hasta hay
hola hora horas la las le les lo los mas me mi mis mucho muy nada ni no nos nuestro o otra otro para pasado pasada
pasados pero poco por porque primer primero puede que quien semanas se sea segun ser si sin sobre son su sus tal
tambien tanto te tengo tiene tienen todo todos tu tus un una uno unos usted va vamos ver vez veces y ya yo harto harta
hartos hartas lunes martes miercoles jueves viernes sabado domingo manana tarde noche proximo proxima ultimo ultima
enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre
libro libros coche coches carta cartas pasta parado parada pagado pagos pago precio precios cerca nuevo nueva
clima chiste partido dolar receta usuario usuarios contrasena clave correo factura facturas cliente
toda cara caro gato cago caga nata arte pare tres moto mies coce adan argo lito
the a an and are at be been by can could did do does for from had has have how i in is it its last me my next
of on or our please show tell that this to was we were what when which who why will with you your yesterday
today tomorrow monday tuesday wednesday thursday friday saturday sunday january february march april may june
july august september october november december ago morning tonight evening hello thanks weather
here send sent cope ride rind know turn hour ours part pate fine fins seed dove dive rove tips tire ties
moth late feet flee tuck till sill ding dong mile reap moor lite tops sops rack tack peed plat nigh whee opec
`.trim().split(/\s+/));
