import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { DefaultJsonSchemaValidator } from './sdkShims.js';

const loaded = () =>
  Object.keys(createRequire(import.meta.url).cache).filter((path) => /ajvProvider/.test(path)).length;

describe('sdkShims: the SDK validator, loaded on first use', () => {
  it('loads the SDK ajv provider only for the first schema, then validates as it does (2020-12 and draft-07)', () => {
    const validator = new DefaultJsonSchemaValidator();
    expect(loaded()).toBe(0);
    const check = validator.getValidator<{ a: number }>({
      type: 'object',
      properties: { a: { type: 'number' } },
      required: ['a'],
    });
    expect(loaded()).toBe(1);
    expect(check({ a: 1 })).toEqual({ valid: true, data: { a: 1 }, errorMessage: undefined });
    const refused = check({ a: 'x' });
    expect(refused.valid).toBe(false);
    expect(refused.errorMessage).toContain('must be number');
    const draft7 = validator.getValidator({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'string',
      format: 'email',
    });
    expect(draft7('a@example.com').valid).toBe(true);
    expect(draft7('not an email').valid).toBe(false);
  });
});
