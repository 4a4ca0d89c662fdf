/**
 * The Chilean RUT (a company's clientCode): dots, spaces and the hyphen are optional on input,
 * `k` or `K`; stored and answered as digits-hyphen-check with an upper-case K (decisions 10).
 */
const SHAPE = /^([1-9][0-9]{0,8})([0-9K])$/;

/** The modulo-11 check digit of the number part. */
export const checkDigit = (body: string): string => {
  let sum = 0;
  let factor = 2;
  for (let i = body.length - 1; i >= 0; i--) {
    sum += Number(body[i]) * factor;
    factor = factor === 7 ? 2 : factor + 1;
  }
  const digit = 11 - (sum % 11);
  return digit === 11 ? '0' : digit === 10 ? 'K' : String(digit);
};

/** The normalised RUT, or undefined when it is malformed or its check digit is wrong. */
export const normaliseRut = (input: string): string | undefined => {
  const compact = input.replace(/[.\s-]/g, '').toUpperCase();
  const match = SHAPE.exec(compact);
  if (!match) return undefined;
  const [, body, check] = match as unknown as [string, string, string];
  // A hyphen, when given, must stand before the check digit and only there.
  const hyphens = input.split('-').length - 1;
  if (hyphens > 1 || (hyphens === 1 && !/-\s*[0-9kK]\s*$/.test(input))) return undefined;
  return checkDigit(body) === check ? `${body}-${check}` : undefined;
};
