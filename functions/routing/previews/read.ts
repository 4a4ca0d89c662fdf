import { epochSeconds } from '../../../shared/clock.ts';
import { opsKeys } from '../../../shared/table/keys-operations.ts';
import { queryPage, type Page } from '../../../shared/table/pages.ts';
import type { PreviewSummary } from '../preview-schemas.ts';
import { toPreviewSummary } from '../preview-record.ts';
import { NOT_EXPIRED_FILTER } from './retention.ts';

/** Previews read for one page at most: a date's previews past their 30 days are few, but never a whole partition per page. */
const MAX_ITEMS_READ = 300;

/**
 * A service date's previews, newest first (UUID v7 ids), through gsi1 (opsKeys.previewsByDate):
 * summaries without their routes (decisions 18), and none past its 30 days.
 */
export const listPreviews = (tenantId: string, serviceDate: string, after: string | undefined, limit: number, now = new Date()): Promise<Page<PreviewSummary>> =>
  queryPage(
    {
      pk: opsKeys.previewsByDate(tenantId, serviceDate, '').gsi1pk,
      index: { name: 'gsi1', tableKey: (id) => opsKeys.preview(tenantId, id) },
      prefix: 'PREVIEW#',
      after,
      limit,
      newestFirst: true,
      filter: { FilterExpression: NOT_EXPIRED_FILTER, ExpressionAttributeValues: { ':now': epochSeconds(now) } },
      maxItemsRead: MAX_ITEMS_READ,
    },
    toPreviewSummary,
    (preview) => preview.id,
  );
