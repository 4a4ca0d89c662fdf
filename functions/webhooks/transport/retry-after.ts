/**
 * Seconds to wait from a Retry-After header: delta-seconds or an HTTP date (RFC 9110 10.2.3).
 * Null when absent or unparseable; a date in the past gives 0.
 */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number = Date.now()): number | null {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return null;
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds : null;
  }
  // Only date-shaped text: Date.parse would also accept things like "1.5" or "2024".
  if (!/[a-z]{3}/i.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}
