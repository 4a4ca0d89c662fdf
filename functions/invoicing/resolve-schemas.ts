import * as v from 'valibot';
import { PageQuery } from '../../shared/http/schemas.ts';
import { localStates } from './schemas.ts';

/** The intents list's query: a page, and optionally one localState (`?localState=unknown`: the guides held for an admin). */
export const IntentPageQuery = v.strictObject({ ...PageQuery.entries, localState: v.optional(v.picklist(localStates, `must be one of ${localStates.join(', ')}`)) });

/**
 * The admin's answer for a guide the look-up could not settle (decisions 16): the provider's
 * guide document id (digits, as the provider's ids), or null when no such guide exists.
 */
export const ResolveBody = v.strictObject({
  externalDocumentId: v.nullable(v.pipe(v.string('must be the provider’s guide document id or null'), v.minLength(1, 'must not be empty'), v.maxLength(40, 'must be at most 40 characters'))),
});
export type ResolveBody = v.InferOutput<typeof ResolveBody>;
