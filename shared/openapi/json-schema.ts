import { toJsonSchema, toJsonSchemaDefs, type ConversionConfig, type JsonSchema } from '@valibot/to-json-schema';
import * as v from 'valibot';

type Schema = v.GenericSchema;

/**
 * Where a schema is used decides which side of its transforms the document shows: a request
 * body is what the client sends (before any transform), a response is what the handler
 * produced, and a parameter is the value the text of the URL stands for.
 */
export type SchemaUse = 'request' | 'response' | 'parameter';

const typeModes = { request: 'input', response: 'output', parameter: 'ignore' } as const;

const target = 'draft-2020-12';
const componentRef = (name: string): string => `#/components/schemas/${name}`;
const definitionRef = /^#\/(?:\$defs|components\/schemas)\/(.+)$/;

const isNumericTransform = (action: { type: string; operation?: unknown }): boolean =>
  action.type === 'to_number' || (action.type === 'transform' && action.operation === Number);

/** A regex that admits nothing but digits means the parsed number is whole. */
const digitsOnly = /^\^(?:\[0-9\]|\\d)(?:\+|\{\d+(?:,\d*)?\})\$$/;

const isJsonScalar = (value: unknown): boolean => ['string', 'number', 'boolean'].includes(typeof value);

/**
 * Query and path values arrive as text and are parsed into numbers by `v.transform(Number)`,
 * which JSON Schema cannot say. OpenAPI describes a parameter by the value it stands for, so
 * from that action on the schema is a number, and the string rules before it are dropped.
 */
const parameterAction: NonNullable<ConversionConfig['overrideAction']> = ({ valibotAction, jsonSchema }) => {
  if (!isNumericTransform(valibotAction as { type: string; operation?: unknown })) return undefined;
  const { type: _text, pattern, format: _format, minLength: _min, maxLength: _max, ...rest } = jsonSchema;
  return { ...rest, type: typeof pattern === 'string' && digitsOnly.test(pattern) ? 'integer' : 'number' };
};

/** A parameter's default is given as text too ('50'); the document shows what it parses to. */
const parameterDefault = (schema: Schema, jsonSchema: JsonSchema): JsonSchema | undefined => {
  if ((schema as { default?: unknown }).default === undefined) return undefined;
  const parsed = v.safeParse(schema, undefined);
  if (!parsed.success || !isJsonScalar(parsed.output) || parsed.output === jsonSchema.default) return undefined;
  return { ...jsonSchema, default: parsed.output as string | number | boolean };
};

/** `$schema` and `$defs` belong to a standalone schema, not to one embedded in the document. */
const tidy = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(tidy);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === '$schema' || key === '$defs') continue;
    if (key === 'required' && Array.isArray(item) && item.length === 0) continue;
    out[key] = tidy(item);
  }
  return out;
};

const refsIn = (value: unknown, found = new Set<string>()): Set<string> => {
  if (Array.isArray(value)) for (const item of value) refsIn(item, found);
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const name = key === '$ref' && typeof item === 'string' ? definitionRef.exec(item)?.[1] : undefined;
      if (name) found.add(name);
      else refsIn(item, found);
    }
  }
  return found;
};

/**
 * Turns the operations' valibot schemas into the document's JSON Schemas. Named schemas become
 * `components.schemas` entries referenced by `$ref`; a named schema whose transforms make what
 * a client sends differ from what it receives gets a second component, `<Name>Input`.
 */
export class SchemaConverter {
  /** Schemas that could not be expressed and were documented as "anything". */
  readonly gaps = new Set<string>();
  private readonly sources = new Map<string, { name: string; use: SchemaUse }>();
  private readonly referenced = new Set<string>();
  private rawDefinitions?: Record<'input' | 'output', Record<string, JsonSchema>>;
  private readonly differs = new Map<string, boolean>();

  constructor(private readonly named: Record<string, Schema>) {}

  convert(schema: Schema, use: SchemaUse, where: string): JsonSchema {
    const json = tidy(toJsonSchema(schema, this.config(use, where))) as JsonSchema;
    for (const name of refsIn(json)) this.referenced.add(name);
    return json;
  }

  /** A `$ref` to a named schema, for the parts of the document written by hand. */
  reference(name: string, use: SchemaUse): JsonSchema {
    const component = this.componentName(name, use);
    this.referenced.add(component);
    return { $ref: componentRef(component) };
  }

  /** Every component the converted schemas refer to, directly or through another component. */
  components(): Record<string, JsonSchema> {
    const out: Record<string, JsonSchema> = {};
    const pending = [...this.referenced];
    while (pending.length > 0) {
      const component = pending.shift()!;
      if (component in out) continue;
      const source = this.sources.get(component);
      if (!source) throw new Error(`No named schema for the component ${component}`);
      const config = this.config(source.use, `components.schemas.${component}`);
      const { definitions: _all, ...withoutDefinitions } = config;
      const json = tidy(toJsonSchemaDefs(this.named, withoutDefinitions)[source.name]) as JsonSchema;
      out[component] = json;
      pending.push(...refsIn(json));
    }
    return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
  }

  private config(use: SchemaUse, where: string): ConversionConfig {
    return {
      target,
      typeMode: typeModes[use],
      // What cannot be expressed is left out rather than failing the document; `gaps` says so.
      errorMode: 'ignore',
      // Parameters are documented inline: each one is a single field.
      definitions: use === 'parameter' ? {} : this.named,
      overrideRef: ({ referenceId }) => componentRef(this.componentName(referenceId, use)),
      overrideAction: use === 'parameter' ? parameterAction : undefined,
      overrideSchema: ({ valibotSchema, jsonSchema, errors }) => {
        if (errors) this.gaps.add(`${where}: ${errors.join(' ')}`);
        return use === 'parameter' ? parameterDefault(valibotSchema, jsonSchema) : undefined;
      },
    };
  }

  private componentName(name: string, use: SchemaUse): string {
    const component = use === 'request' && this.inputDiffers(name) ? `${name}Input` : name;
    this.sources.set(component, { name, use });
    return component;
  }

  private inputDiffers(name: string, visiting = new Set<string>()): boolean {
    const known = this.differs.get(name);
    if (known !== undefined) return known;
    if (visiting.has(name)) return false;
    visiting.add(name);
    this.rawDefinitions ??= {
      input: toJsonSchemaDefs(this.named, { target, typeMode: 'input', errorMode: 'ignore' }),
      output: toJsonSchemaDefs(this.named, { target, typeMode: 'output', errorMode: 'ignore' }),
    };
    const input = this.rawDefinitions.input[name];
    const result =
      JSON.stringify(input) !== JSON.stringify(this.rawDefinitions.output[name]) ||
      [...refsIn(input)].some((inner) => this.inputDiffers(inner, visiting));
    this.differs.set(name, result);
    return result;
  }
}
