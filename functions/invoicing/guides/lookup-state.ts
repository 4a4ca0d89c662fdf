/**
 * What a guide intent keeps of its look-up at the provider (docs/guides-exactly-once.md): stored
 * on the intent (intent-record.ts) and advanced by the look-up (shipping-lookup.ts). Its own file
 * so that both import it and neither imports the other.
 */
export interface ShippingLookup {
  /** The shipping type every attempt sends (fixed by the first, as the submission's type and date are). */
  shippingTypeId: string;
  /** A look-up under way across reconciler runs: its next offset, what matched so far, when it began. */
  progress: LookupProgress | null;
  /** The guides the last finished look-up could not tell apart: an admin settles the intent (resolve). */
  ambiguous: string[] | null;
}

export interface LookupProgress {
  offset: number;
  candidates: Candidate[];
  startedAt: string;
}

export interface Candidate {
  shippingId: string;
  guideId: string | null;
  /** The provider echoed this intent's salesId on the guide: a tie-breaker only, never a proof of absence. */
  ownSalesId: boolean;
  /**
   * Why it is only possibly this intent's (absent when it matches as sent): its lines could not be
   * read whole or parsed, or it differs from what was sent only as the provider is not documented
   * to change it. Either holds the guide for an admin, never counts as absence (decisions 19).
   */
  doubt?: 'unreadable' | 'near';
}
