import * as v from 'valibot';
import { IsoDate } from '../../shared/http/schemas.ts';
import { questionKinds } from './classifier/index.ts';

export const QuestionKind = v.picklist(questionKinds, `must be one of ${questionKinds.join(', ')}`);

export const AskBody = v.strictObject({
  text: v.pipe(v.string('must be a string'), v.maxLength(1000, 'must be at most 1000 characters')),
});

export const Classification = v.object({
  question: v.nullable(QuestionKind),
  vehicleId: v.nullable(v.pipe(v.string(), v.uuid())),
  date: v.nullable(IsoDate),
});

export const AskedBody = v.strictObject({ question: QuestionKind });

export const popularSources = ['tenant', 'default'] as const;

export const PopularList = v.object({
  items: v.array(v.object({ question: QuestionKind, source: v.picklist(popularSources) })),
});
export type PopularList = v.InferOutput<typeof PopularList>;
