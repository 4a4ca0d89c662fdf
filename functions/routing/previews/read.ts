import { opsKeys } from '../../../shared/table/keys-operations.ts';
import { queryPage, type Page } from '../../../shared/table/pages.ts';
import type { Preview } from '../preview-schemas.ts';
import { toPreview } from '../preview-record.ts';

/** A service date's previews, newest first (UUID v7 ids), through gsi1 (opsKeys.previewsByDate). */
export const listPreviews = (tenantId: string, serviceDate: string, after: string | undefined, limit: number): Promise<Page<Preview>> =>
  queryPage(
    {
      pk: opsKeys.previewsByDate(tenantId, serviceDate, '').gsi1pk,
      index: { name: 'gsi1', tableKey: (id) => opsKeys.preview(tenantId, id) },
      prefix: 'PREVIEW#',
      after,
      limit,
      newestFirst: true,
    },
    toPreview,
    (preview) => preview.id,
  );
