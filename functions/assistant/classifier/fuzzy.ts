/**
 * Typo tolerance. Optimal string alignment (restricted Damerau-Levenshtein) is
 * enough for keyboard slips such as "semna", "velosidad" or "ubicaicon".
 */

export function editDistance(a: string, b: string, limit = Infinity): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push(new Array<number>(b.length + 1).fill(0));
    rows[i][0] = i;
  }
  for (let j = 0; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    let rowMin = Infinity;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, rows[i - 2][j - 2] + 1);
      }
      rows[i][j] = v;
      rowMin = Math.min(rowMin, v);
    }
    // Early exit keeps the vocabulary scan cheap for obviously different words.
    if (rowMin > limit) return limit + 1;
  }
  return rows[a.length][b.length];
}

/**
 * Short words are too easy to confuse ("mes"/"mas"), so they never get slack; except that a
 * word of five letters typed with one letter missing ("dnde", "nrte") is still read as that word
 * (four typed letters against five is one edit only as a missing letter).
 */
export function allowedDistance(word: string, candidate: string): number {
  const len = Math.min(word.length, candidate.length);
  if (len >= 8) return 2;
  if (len >= 5) return 1;
  if (word.length === 4 && candidate.length === 5) return 1;
  return 0;
}

/**
 * Every vocabulary entry at the smallest allowed distance; the caller decides
 * what a tie between different words means (usually: ignore the token).
 */
export function closestWords(word: string, vocabulary: Iterable<string>): string[] {
  if (word.length < 4 || /\d/.test(word)) return [];
  let best: string[] = [];
  let bestDistance = Infinity;
  for (const candidate of vocabulary) {
    const allowed = allowedDistance(word, candidate);
    if (allowed === 0) continue;
    const d = editDistance(word, candidate, allowed);
    if (d > allowed) continue;
    if (d < bestDistance) {
      best = [candidate];
      bestDistance = d;
    } else if (d === bestDistance) {
      best.push(candidate);
    }
  }
  return best;
}
