import { describe, expect, it } from 'vitest';
import { addMonthsClamped, careSources, suggestCare } from '../../../functions/fleet/care-suggestions.ts';
import type { Vehicle } from '../../../functions/fleet/schemas.ts';

type Traits = Pick<Vehicle, 'plate' | 'class' | 'ownerKind' | 'region'>;
const car = (plate: string, traits: Partial<Traits> = {}): Traits => ({ plate, class: 'car', ownerKind: 'company', region: 'CL-RM', ...traits });

describe('care suggestions: the yearly technical review by plate digit', () => {
  it('puts it at the end of the plate digit’s month', () => {
    const months = ['2027-02-28', '2026-04-30', '2026-05-31', '2026-06-30', '2026-07-31', '2026-08-31', '2026-09-30', '2026-10-31', '2026-11-30', '2027-01-31'];
    for (let digit = 0; digit <= 9; digit++) expect(suggestCare(car(`BBCC1${digit}`), null, '2026-03-15').technicalReview).toBe(months[digit]);
  });

  it('takes this year’s month until its last day, then next year’s', () => {
    expect(suggestCare(car('GHJK38'), null, '2026-11-30').technicalReview).toBe('2026-11-30');
    expect(suggestCare(car('GHJK38'), null, '2026-12-01').technicalReview).toBe('2027-11-30');
    expect(suggestCare(car('GHJK30'), null, '2028-02-15').technicalReview).toBe('2028-02-29');
  });

  it('turns the year: on December 31 a January digit is next month, on January 31 it is still today', () => {
    expect(suggestCare(car('GHJK39'), null, '2026-12-31').technicalReview).toBe('2027-01-31');
    expect(suggestCare(car('GHJK39'), null, '2027-01-31').technicalReview).toBe('2027-01-31');
    expect(suggestCare(car('GHJK39'), null, '2027-02-01').technicalReview).toBe('2028-01-31');
  });

  it('has no month for a plate that does not end in a digit', () => {
    expect(suggestCare(car('ABCDE'), null, '2026-06-01').technicalReview).toBeNull();
  });

  it('applies to cars whatever their owner or region, to vans of people, and to company vans outside Santiago', () => {
    for (const traits of [{ ownerKind: 'person' as const }, { region: 'CL-VS' as const }, { class: 'van' as const, ownerKind: 'person' as const }, { class: 'van' as const, region: 'CL-BI' as const }]) {
      const s = suggestCare(car('GHJK35', traits), '2026-01-10', '2026-03-15');
      expect(s, JSON.stringify(traits)).toMatchObject({ technicalReview: '2026-08-31', technicalReviewEveryMonths: 12 });
    }
  });
});

describe('care suggestions: the 6-monthly technical review', () => {
  it('applies to trucks and buses anywhere and to company vans in CL-RM: the recorded date plus 6 months', () => {
    for (const traits of [{ class: 'cargo' as const, ownerKind: 'person' as const, region: 'CL-AN' as const }, { class: 'passenger' as const, region: 'CL-MA' as const }, { class: 'van' as const }]) {
      const s = suggestCare(car('GHJK35', traits), '2026-05-10', '2026-03-15');
      expect(s, JSON.stringify(traits)).toMatchObject({ technicalReview: '2026-11-10', technicalReviewEveryMonths: 6 });
    }
  });

  it('answers it once even when past, and null when none is recorded', () => {
    expect(suggestCare(car('GHJK35', { class: 'cargo' }), '2024-01-15', '2026-03-15').technicalReview).toBe('2024-07-15');
    expect(suggestCare(car('GHJK35', { class: 'cargo' }), null, '2026-03-15')).toMatchObject({ technicalReview: null, technicalReviewEveryMonths: 6 });
  });

  it('clamps to the month’s last day and crosses the year', () => {
    expect(addMonthsClamped('2026-08-31', 6)).toBe('2027-02-28');
    expect(addMonthsClamped('2027-08-31', 6)).toBe('2028-02-29');
    expect(addMonthsClamped('2026-12-31', 6)).toBe('2027-06-30');
    expect(addMonthsClamped('2026-07-15', 6)).toBe('2027-01-15');
    expect(addMonthsClamped('2026-03-30', 6)).toBe('2026-09-30');
  });
});

describe('care suggestions: circulation permit and SOAP', () => {
  it('dates cars and vans on March 31, buses on May 31 and trucks on September 30, the next not past', () => {
    const permit = (cls: Vehicle['class'], today: string) => suggestCare(car('BBCC10', { class: cls }), null, today).circulationPermit;
    expect([permit('car', '2026-03-31'), permit('van', '2026-04-01')]).toEqual(['2026-03-31', '2027-03-31']);
    expect([permit('passenger', '2026-05-31'), permit('passenger', '2026-06-01')]).toEqual(['2026-05-31', '2027-05-31']);
    expect([permit('cargo', '2026-09-30'), permit('cargo', '2026-10-01')]).toEqual(['2026-09-30', '2027-09-30']);
    expect(permit('cargo', '2026-12-31')).toBe('2027-09-30');
  });

  it('dates SOAP on March 31 for cars and vans and leaves it to the tenant for the others', () => {
    expect(suggestCare(car('BBCC10'), null, '2026-01-01').soap).toBe('2026-03-31');
    expect(suggestCare(car('BBCC10', { class: 'van' }), null, '2026-04-01').soap).toBe('2027-03-31');
    expect(suggestCare(car('BBCC10', { class: 'cargo' }), null, '2026-01-01').soap).toBeNull();
    expect(suggestCare(car('BBCC10', { class: 'passenger' }), null, '2026-01-01').soap).toBeNull();
  });

  it('names a legal source for every rule', () => {
    const s = suggestCare(car('BBCC10'), null, '2026-01-01');
    expect(s.sources).toEqual(careSources);
    expect(s.sources.technicalReview).toContain('156');
    expect(s.sources.circulationPermit).toContain('3.063');
    expect(s.sources.soap).toContain('18.490');
  });
});
