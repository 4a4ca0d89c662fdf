/**
 * Every tag an operation may carry, with what it groups. `tag` on an operation is typed as one of
 * these names, so an operation in a new area does not compile until its tag is described here:
 * API browsers show the description as the heading of the group.
 */
export const tagDescriptions = {
  Assistant: 'Questions a person asks the assistant: how it classifies them, and the most asked ones in the company.',
  Fleet: 'The company’s vehicles: register, list, read and change them.',
  'Vehicle care': 'When each vehicle is due for its technical review, circulation permit, mandatory insurance (SOAP) and service: its dates, odometer readings, and dates suggested by Chilean rules.',
  Orders: 'Delivery orders, each with a public tracking link, from creation to cancellation.',
  Routing: 'Route plans: orders grouped into routes for a service date, created in preview and then approved.',
  Field: 'What happens on the road: routes assigned to a driver and a vehicle, started, positions, delivery outcomes with their evidence, finished or cancelled.',
  'Public tracking': 'What the recipient of a delivery sees through its tracking link, with no account: a JSON view and an HTML page.',
  Meta: 'The interface’s own description.',
  Webhooks: 'Destinations that receive signed notifications of the company’s events, their signing secrets, and the deliveries made to them.',
  Audit: 'The log of changes: one entry for every change, with who made it and when.',
  Integrations: 'Connections to the billing provider (or its sandbox) and what is read through them.',
  'Tenant settings': 'The company’s own settings: its name, time zone and region, the tracking ETA’s speed and stop minutes, and what an expired vehicle document does to a route.',
  'Invoice intents': 'Receipts, invoices and credit notes, drafted, reviewed and approved here, then issued through the billing provider once.',
} as const;

export type TagName = keyof typeof tagDescriptions;
