/**
 * The Chilean RUT (Rol Único Tributario): body digits and a modulo-11 check digit (0-9 or K).
 * Written in many ways ("76.123.456-0", "761234560", "76123456-k"); stored as digits-hyphen-check
 * with an upper-case K, the form the billing provider's `client_code` takes.
 */
export const rutCheckDigit = (body: string): string => {
  let sum = 0;
  let factor = 2;
  for (let i = body.length - 1; i >= 0; i--) {
    sum += Number(body[i]) * factor;
    factor = factor === 7 ? 2 : factor + 1;
  }
  const rest = 11 - (sum % 11);
  return rest === 11 ? '0' : rest === 10 ? 'K' : String(rest);
};

/** The normal form, or null when the text is no RUT or its check digit is wrong. */
export const normaliseRut = (text: string): string | null => {
  const compact = text.replace(/[.\s-]/g, '').toUpperCase();
  const match = /^([1-9][0-9]{0,8})([0-9K])$/.exec(compact);
  if (!match) return null;
  const [, body, check] = match;
  return rutCheckDigit(body!) === check ? `${body}-${check}` : null;
};
