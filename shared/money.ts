/**
 * Money and quantities as integers (decisions 9): minor amounts are integer strings handled as
 * BigInt, quantities are decimals of up to 6 places held as millionths (BigInt). No amount ever
 * passes through a JavaScript number here.
 */

/** ISO 4217 minor-unit scales of the currencies the service accepts. */
export const CURRENCY_SCALES: Readonly<Record<string, number>> = {
  CLP: 0,
  CLF: 4,
  USD: 2,
  EUR: 2,
  ARS: 2,
  BRL: 2,
  PEN: 2,
  COP: 2,
  MXN: 2,
  UYU: 2,
  BOB: 2,
  PYG: 0,
  JPY: 0,
  KRW: 0,
  BHD: 3,
  KWD: 3,
  JOD: 3,
  OMR: 3,
  TND: 3,
};

export const QUANTITY_SCALE = 6;
const MICRO = 10n ** BigInt(QUANTITY_SCALE);

/** A quantity as JSON number or decimal string: > 0, at most 6 decimals. */
export const QUANTITY_PATTERN = /^(0|[1-9][0-9]{0,11})(\.[0-9]{1,6})?$/;
/** A non-negative integer of minor units (at most 18 digits). */
export const MINOR_PATTERN = /^(0|[1-9][0-9]{0,17})$/;

/**
 * A JSON number's shortest text (what it was written as, for every number with at most 6
 * decimals), so 1.5 and "1.5" read the same; exponent forms are refused by the pattern.
 */
export const quantityText = (input: number | string): string => (typeof input === 'number' ? String(input) : input);

/** Millionths of a valid quantity text. */
export const toMicro = (quantity: string): bigint => {
  const [whole, fraction = ''] = quantity.split('.');
  return BigInt(whole!) * MICRO + BigInt(fraction.padEnd(QUANTITY_SCALE, '0'));
};

/** The canonical decimal text of millionths: no trailing zeros, no dangling point. */
export const fromMicro = (micro: bigint): string => {
  const whole = micro / MICRO;
  const fraction = (micro % MICRO).toString().padStart(QUANTITY_SCALE, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : `${whole}`;
};

/** quantity x unit price, rounded half up (both non-negative), as minor units. */
export const lineTotal = (quantityMicro: bigint, unitPriceMinor: bigint): bigint => (quantityMicro * unitPriceMinor + MICRO / 2n) / MICRO;

export const sum = (values: bigint[]): bigint => values.reduce((a, b) => a + b, 0n);

/** The provider's wire format is a JSON number: only for values it can carry exactly. */
export const toWireNumber = (value: bigint | string): number => {
  const big = typeof value === 'bigint' ? value : BigInt(value);
  if (big > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('amount too large for the provider');
  return Number(big);
};

/** A quantity (millionths) as the provider's decimal number (only for one `travelsExactly` accepts). */
export const quantityToWire = (micro: bigint): number => Number(fromMicro(micro));

const MAX_WIRE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Whether a value reaches the provider, which takes JSON numbers only, as itself: an integer up
 * to 2^53 - 1, or a quantity whose double prints back as the same decimal (at most 15-17
 * significant digits survive, so 123456789012.123456 does not).
 */
export const travelsExactly = {
  minor: (value: bigint): boolean => value <= MAX_WIRE,
  quantity: (micro: bigint): boolean => String(Number(fromMicro(micro))) === fromMicro(micro),
};
