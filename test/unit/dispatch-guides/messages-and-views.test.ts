import { describe, expect, it } from 'vitest';
import { guideChangeShows, trackedGuideNumber } from '../../../functions/tracking/guide-views.ts';
import { importMessageBody, importMessageGroup, isGuideIssue, isNoticeDrain } from '../../../shared/ports/import-queue.ts';

describe('the guides message on the import queue', () => {
  const message = { kind: 'guides' as const, tenantId: 't-1', routeId: 'r-1' };

  it('carries only its own fields and is told apart from pages and notices', () => {
    expect(JSON.parse(importMessageBody({ ...message, extra: 'secret' } as typeof message))).toEqual(message);
    expect(isGuideIssue(message)).toBe(true);
    expect(isNoticeDrain(message)).toBe(false);
    expect(isGuideIssue({ tenantId: 't-1', connectionId: 'c', importId: 'i', step: 0 })).toBe(false);
  });

  it('has a fairness group of its own per tenant: guides do not wait behind the tenant’s import pages', () => {
    expect(importMessageGroup(message)).toBe('guides#t-1');
    expect(importMessageGroup({ tenantId: 't-1', connectionId: 'c', importId: 'i', step: 0 })).toBe('t-1');
  });
});

describe('what the tracking view shows of a guide', () => {
  const guide = (localState: string, number: string | null) => ({ intentId: 'x', localState, number }) as Parameters<typeof trackedGuideNumber>[0];

  it('the folio only once issued or provider_recorded', () => {
    expect(trackedGuideNumber(guide('issued', '1042'))).toBe('1042');
    expect(trackedGuideNumber(guide('provider_recorded', '1042'))).toBe('1042');
    for (const state of ['approved', 'submitting', 'unknown', 'rejected', 'cancelled']) expect(trackedGuideNumber(guide(state, '1042'))).toBeNull();
    expect(trackedGuideNumber(null)).toBeNull();
  });

  it('a guide item’s change moves the view only when the folio shown appears or changes', () => {
    const item = (localState: string, number: string | null) => ({ entity: 'dispatch-guide', localState, number });
    expect(guideChangeShows(undefined, item('approved', null))).toBe(false);
    expect(guideChangeShows(item('approved', null), item('submitting', null))).toBe(false);
    expect(guideChangeShows(item('submitting', null), item('issued', '7'))).toBe(true);
    expect(guideChangeShows(item('provider_recorded', '7'), item('issued', '7'))).toBe(false);
    expect(guideChangeShows(item('provider_recorded', '7'), item('rejected', '7'))).toBe(true);
  });
});
