/**
 * Text folding shared by every part of the classifier. Two levels exist because
 * date parsing needs the separators in "20/11/2026" while keyword and vehicle
 * matching want plain word tokens.
 */

/** Lower case without accents; keeps punctuation so numeric dates survive. */
export function fold(text: string): string {
  return text
    // NFKD rather than NFD so that "nº"/"1º" also lose their ordinal marks.
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[¿¡]/g, ' ');
}

/** Folded text with every non letter/digit run turned into a single space. */
export function normalise(text: string): string {
  return fold(text)
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

export function tokenize(text: string): string[] {
  const n = normalise(text);
  return n === '' ? [] : n.split(' ');
}

/**
 * Splits "camion3" or "ab1234" into letter and digit runs so that labels typed
 * without a space still match; plates are rebuilt by concatenation anyway.
 */
export function splitAlnum(tokens: readonly string[]): string[] {
  return tokens.flatMap((t) => t.match(/\p{L}+|\p{N}+/gu) ?? []);
}
