import { describe, expect, it } from 'vitest';
import { deliveryIdFor } from '../../../functions/webhooks/delivery-record.ts';
import { newId } from '../../../shared/ids.ts';
import { DUE_SHARDS, keys, OUTBOX_SHARDS, shardOf } from '../../../shared/table/keys.ts';

/**
 * The sharded keys spread their writes evenly over every shard (docs/capacity.md sizes the counts
 * on that assumption): ids made in one burst, as 10,000 events a second are, included.
 */
const PER_SHARD = 400;

/** How many of `count` keys land in each partition. */
const histogram = (count: number, partitionOf: (i: number) => string): Map<string, number> => {
  const seen = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const partition = partitionOf(i);
    seen.set(partition, (seen.get(partition) ?? 0) + 1);
  }
  return seen;
};

/** Every shard used, none more than 30% off the mean (over 6 standard deviations at 400 per shard). */
const expectEven = (seen: Map<string, number>, shards: number, prefix: string) => {
  expect([...seen.keys()].sort()).toEqual(Array.from({ length: shards }, (_, s) => `${prefix}${s}`).sort());
  const counts = [...seen.values()];
  expect(Math.max(...counts)).toBeLessThan(PER_SHARD * 1.3);
  expect(Math.min(...counts)).toBeGreaterThan(PER_SHARD * 0.7);
};

describe('the spread of the sharded keys', () => {
  it('spreads due deliveries over all due shards, one event fanned out to many endpoints too', () => {
    const eventId = newId();
    const occurredAt = new Date().toISOString();
    const seen = histogram(DUE_SHARDS * PER_SHARD, () => keys.deliveryDue(deliveryIdFor(eventId, newId(), occurredAt), occurredAt).gsi2pk);
    expectEven(seen, DUE_SHARDS, 'DUE#');
  });

  it('spreads one hour of outbox events over all its shards', () => {
    const occurredAt = '2026-11-25T01:00:00.000Z';
    const seen = histogram(OUTBOX_SHARDS * PER_SHARD, () => keys.eventByTime(newId(), occurredAt).gsi1pk);
    expectEven(seen, OUTBOX_SHARDS, 'OUTBOX#2026-11-25T01#');
  });

  it('keeps counts at powers of two, so raising one keeps the spread even and every old shard number', () => {
    for (const shards of [DUE_SHARDS, OUTBOX_SHARDS]) {
      expect(Number.isInteger(Math.log2(shards)), String(shards)).toBe(true);
      // 16 bits of the id decide, so up to 65,536 shards.
      expect(shards).toBeLessThanOrEqual(65_536);
    }
    const id = newId();
    // The shard under a smaller power of two is the shard under the larger one, reduced: items
    // written before a raise sit in partitions the readers of the larger count still read.
    expect(shardOf(id, DUE_SHARDS) % 4).toBe(shardOf(id, 4));
  });
});
