/** How much of a receiver's answer the attempt log keeps (decisions 5). */
export const RESPONSE_EXCERPT_BYTES = 256;

/** Characters an excerpt never keeps (see below). */
const UNSHOWN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;

/**
 * The first bytes of a receiver's body as text: cut before a character the limit would split,
 * decoded as UTF-8, control characters (C0, DEL, C1: newlines and tabs too), format characters
 * (Unicode Cf: bidirectional marks, embeddings, overrides and isolates, zero-width characters,
 * the BOM, soft hyphens) and the line and paragraph separators removed, so a log line, a terminal
 * or a page that shows it can be neither steered nor made to read differently from what it holds
 * (a right-to-left override reversing what follows it). Null without a body.
 */
export const responseExcerpt = (head: Buffer): string | null => {
  if (head.length === 0) return null;
  let end = Math.min(head.length, RESPONSE_EXCERPT_BYTES);
  // A continuation byte right after the cut means the character began before it: leave it out whole.
  if (end < head.length) while (end > 0 && (head[end] & 0xc0) === 0x80) end--;
  return head.subarray(0, end).toString('utf8').replace(UNSHOWN, '');
};
