import fc from 'fast-check';

export type JsonSchema = Record<string, any>;

/**
 * Values that satisfy a JSON Schema of the OpenAPI document, for the shapes our valibot schemas
 * produce: $ref, type (or a list of types), enum/const, anyOf/oneOf/allOf, string formats and
 * patterns, numeric bounds, arrays and objects. Strings stay short: the mutations make them huge.
 */
export class SchemaArbitraries {
  constructor(private readonly components: Record<string, JsonSchema>) {}

  resolve(schema: JsonSchema): JsonSchema {
    let current = schema;
    for (let depth = 0; current?.$ref && depth < 20; depth++) {
      const name = String(current.$ref).replace('#/components/schemas/', '');
      current = this.components[name] ?? {};
    }
    return current ?? {};
  }

  of(input: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
    const schema = this.resolve(input);
    if (depth > 6) return fc.constant(null);
    if ('const' in schema) return fc.constant(schema.const);
    if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
    const alternatives = schema.anyOf ?? schema.oneOf;
    if (Array.isArray(alternatives) && alternatives.length > 0) return fc.oneof(...alternatives.map((s: JsonSchema) => this.of(s, depth + 1)));
    if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
      return this.of(Object.assign({}, ...schema.allOf.map((s: JsonSchema) => this.resolve(s)), { allOf: undefined }), depth + 1);
    }
    const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : schema.properties ? ['object'] : [];
    if (types.length === 0) return fc.jsonValue({ maxDepth: 2 });
    return fc.oneof(...types.map((type) => this.ofType(type, schema, depth)));
  }

  private ofType(type: string, schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
        return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
      case 'number':
        return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
      case 'string':
        return this.string(schema);
      case 'array': {
        const item = schema.items ? this.of(schema.items, depth + 1) : fc.jsonValue({ maxDepth: 1 });
        return fc.array(item, { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, 4) });
      }
      case 'object': {
        const properties: Record<string, JsonSchema> = schema.properties ?? {};
        const required = new Set<string>(schema.required ?? []);
        const record: Record<string, fc.Arbitrary<unknown>> = {};
        for (const [name, property] of Object.entries(properties)) record[name] = this.of(property, depth + 1);
        return fc.record(record, { requiredKeys: Object.keys(properties).filter((name) => required.has(name)) });
      }
      default:
        return fc.constant(null);
    }
  }

  private string(schema: JsonSchema): fc.Arbitrary<string> {
    const min = schema.minLength ?? 0;
    const max = Math.max(min, Math.min(schema.maxLength ?? 40, 40));
    switch (schema.format) {
      case 'uuid':
        return fc.uuid({ version: 7 });
      case 'date':
        return fc.date({ min: new Date('2020-01-01'), max: new Date('2030-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
      case 'date-time':
        return fc.date({ min: new Date('2020-01-01'), max: new Date('2030-12-31'), noInvalidDate: true }).map((d) => d.toISOString());
      case 'email':
        return fc.emailAddress();
      case 'uri':
        return fc.webUrl({ validSchemes: ['https'] });
      default:
        break;
    }
    if (schema.pattern) {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= min && s.length <= (schema.maxLength ?? Infinity));
    }
    return fc.string({ minLength: min, maxLength: max, unit: 'grapheme' });
  }
}
