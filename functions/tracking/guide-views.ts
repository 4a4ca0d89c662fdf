import type { StopDispatchGuide } from '../field/dispatch-guide-schemas.ts';

/** The folio the tracking view shows: only once the guide is issued or held by the provider (decisions 14). */
export const trackedGuideNumber = (guide: StopDispatchGuide | undefined): string | null =>
  guide && (guide.localState === 'issued' || guide.localState === 'provider_recorded') ? guide.number : null;

/**
 * Whether a stop guide item's change shows on the tracking page: only when the folio it shows
 * appears or changes. Every other move of a guide (approved, submitting, unknown) leaves the view
 * as it is, so the projection does no work for it.
 */
export const guideChangeShows = (oldItem: Record<string, unknown> | undefined, newItem: Record<string, unknown> | undefined): boolean => {
  const shown = (item: Record<string, unknown> | undefined) => (item ? trackedGuideNumber(item as unknown as StopDispatchGuide) : null);
  return shown(oldItem) !== shown(newItem);
};
