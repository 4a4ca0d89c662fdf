import { describe, expect, it } from 'vitest';
import { suggestCare } from '../../../functions/fleet/care-suggestions.ts';

describe('care suggestions from Chilean rules', () => {
  it('puts the technical review at the end of the plate digit’s month', () => {
    const months = ['2027-02-28', '2026-04-30', '2026-05-31', '2026-06-30', '2026-07-31', '2026-08-31', '2026-09-30', '2026-10-31', '2026-11-30', '2027-01-31'];
    for (let digit = 0; digit <= 9; digit++) expect(suggestCare(`BBCC1${digit}`, '2026-03-15').technicalReview).toBe(months[digit]);
  });

  it('takes this year’s month until its last day, then next year’s', () => {
    expect(suggestCare('GHJK38', '2026-11-30').technicalReview).toBe('2026-11-30');
    expect(suggestCare('GHJK38', '2026-12-01').technicalReview).toBe('2027-11-30');
    expect(suggestCare('GHJK30', '2028-02-15').technicalReview).toBe('2028-02-29');
  });

  it('has no technical review month for a plate that does not end in a digit', () => {
    expect(suggestCare('ABCDE', '2026-06-01').technicalReview).toBeNull();
  });

  it('dates the circulation permit and SOAP on the next March 31 that is not past', () => {
    expect(suggestCare('BBCC10', '2026-03-31')).toMatchObject({ circulationPermit: '2026-03-31', soap: '2026-03-31' });
    expect(suggestCare('BBCC10', '2026-04-01')).toMatchObject({ circulationPermit: '2027-03-31', soap: '2027-03-31' });
    expect(suggestCare('BBCC10', '2026-01-01')).toMatchObject({ circulationPermit: '2026-03-31', soap: '2026-03-31' });
  });
});
