import { defineOperation } from '../../shared/http/operation.ts';
import { getTenant, DEFAULT_TIME_ZONE } from '../../shared/tenancy/tenants.ts';
import { allVehicles } from '../fleet/vehicles.ts';
import { classifyQuestion } from './classifier/index.ts';
import { popularQuestions, recordAsked } from './popular.ts';
import { AskBody, AskedBody, Classification, PopularList } from './schemas.ts';

const tag = 'Assistant';

export const classifyQuestionOperation = defineOperation({
  operationId: 'classifyQuestion',
  method: 'POST',
  path: '/v1/assistant/questions',
  summary: 'Classify a question',
  tag,
  permission: 'assistant.ask',
  body: AskBody,
  responses: { 200: { description: 'The question kind, vehicle and date found in the text', schema: Classification } },
  handle: async ({ body, caller }) => {
    const [tenant, vehicles] = await Promise.all([getTenant(caller.tenantId), allVehicles(caller.tenantId)]);
    const result = classifyQuestion(body.text, { vehicles, timeZone: tenant?.timeZone ?? DEFAULT_TIME_ZONE, now: caller.now });
    return { status: 200, body: result };
  },
});

export const recordAskedOperation = defineOperation({
  operationId: 'recordAskedQuestion',
  method: 'POST',
  path: '/v1/assistant/asked',
  summary: 'Record an asked question',
  tag,
  permission: 'assistant.ask',
  body: AskedBody,
  // Concurrent askers add to the same day's counter; a cancelled transaction adds again.
  retryOnConflict: true,
  responses: { 204: { description: 'Recorded' } },
  handle: async ({ body, caller }) => ({
    status: 204,
    writes: [recordAsked(caller.tenantId, body.question, caller.now)],
    // The counters have no id of their own: they belong to the tenant.
    resourceId: caller.tenantId,
  }),
});

export const popularQuestionsOperation = defineOperation({
  operationId: 'listPopularQuestions',
  method: 'GET',
  path: '/v1/assistant/popular',
  summary: 'List the most asked questions',
  tag,
  permission: 'assistant.ask',
  responses: { 200: { description: 'Up to 6 kinds: the tenant’s most asked in 30 days, topped up with defaults', schema: PopularList } },
  handle: async ({ caller }) => ({ status: 200, body: await popularQuestions(caller.tenantId, caller.now) }),
});

export const assistantOperations = [classifyQuestionOperation, recordAskedOperation, popularQuestionsOperation];
