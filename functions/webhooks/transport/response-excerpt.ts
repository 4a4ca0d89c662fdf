/** How much of a receiver's answer the attempt log keeps (decisions 5). */
export const RESPONSE_EXCERPT_BYTES = 256;

/**
 * The first bytes of a receiver's body as text: cut before a character the limit would split,
 * decoded as UTF-8, control characters (C0, DEL, C1: newlines and tabs too) removed, so a log
 * line or a terminal that shows it cannot be steered by the receiver. Null without a body.
 */
export const responseExcerpt = (head: Buffer): string | null => {
  if (head.length === 0) return null;
  let end = Math.min(head.length, RESPONSE_EXCERPT_BYTES);
  // A continuation byte right after the cut means the character began before it: leave it out whole.
  if (end < head.length) while (end > 0 && (head[end] & 0xc0) === 0x80) end--;
  return head.subarray(0, end).toString('utf8').replace(/\p{Cc}/gu, '');
};
