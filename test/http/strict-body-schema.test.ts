import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { strictBody } from '../../src/http/body';
import { zodIssues } from '../../src/http/errors';

/** The fields a strict body refuses as unknown, by dotted path. */
const unknown = (schema: z.ZodType, value: unknown) => {
  const r = schema.safeParse(value);
  return r.success
    ? []
    : zodIssues(r.error)
        .filter((i) => i.message === 'Unknown field')
        .map((i) => i.field);
};

describe('strictBody: every object of a body schema, whatever wraps it', () => {
  it('reaches objects through optional, nullable, default, array, tuple, record, union, pipe and lazy', () => {
    const Leaf = z.object({ a: z.string() });
    type Tree = { name: string; children?: Tree[] };
    const Tree: z.ZodType<Tree> = z.lazy(() => z.object({ name: z.string(), children: z.array(Tree).optional() }));
    const schema = strictBody(
      z.object({
        opt: Leaf.optional(),
        nul: Leaf.nullable(),
        def: Leaf.default({ a: 'd' }),
        arr: z.array(Leaf),
        tup: z.tuple([Leaf]),
        rec: z.record(z.string(), Leaf),
        uni: z.union([z.string(), Leaf]),
        disc: z.discriminatedUnion('t', [z.object({ t: z.literal('x') }), z.object({ t: z.literal('y'), b: z.int() })]),
        piped: Leaf.transform((l) => l.a),
        tree: Tree,
      }),
    );
    const leaf = { a: 'x', zz: 1 };
    const value = {
      zz: 1,
      opt: leaf,
      nul: leaf,
      def: leaf,
      arr: [leaf],
      tup: [leaf],
      rec: { k: leaf },
      uni: leaf,
      disc: { t: 'y', b: 1, zz: 1 },
      piped: leaf,
      tree: { name: 'r', children: [{ name: 'c', zz: 1 }] },
    };
    expect(unknown(schema, value).sort()).toEqual(
      [
        'zz',
        'opt.zz',
        'nul.zz',
        'def.zz',
        'arr.0.zz',
        'tup.0.zz',
        'rec.k.zz',
        'uni.zz',
        'disc.zz',
        'piped.zz',
        'tree.children.0.zz',
      ].sort(),
    );
  });

  it('keeps what the schema says besides: refinements, transforms, fresh defaults, metadata, declared catch-alls', () => {
    const Base = z
      .object({ min: z.int(), max: z.int(), tags: z.array(z.string()).default([]) })
      .refine((r) => r.min <= r.max, { message: 'min above max', path: ['min'] })
      .meta({ id: 'StrictBodyRange', description: 'a range' });
    const schema = strictBody(
      z.object({ range: Base, open: z.looseObject({ a: z.string() }), name: z.string().transform((s) => s.trim()) }),
    );
    const ok = schema.parse({ range: { min: 1, max: 2 }, open: { a: 'x', extra: 1 }, name: ' n ' });
    expect(ok).toEqual({ range: { min: 1, max: 2, tags: [] }, open: { a: 'x', extra: 1 }, name: 'n' });
    // Each parse gets its own default (the default's getter is kept, not one shared array).
    const again = schema.parse({ range: { min: 1, max: 2 }, open: { a: 'x' }, name: 'n' });
    expect(again.range.tags).not.toBe(ok.range.tags);
    expect(schema.safeParse({ range: { min: 3, max: 2 }, open: { a: 'x' }, name: 'n' }).error?.issues[0]?.message).toBe('min above max');
    const json = z.toJSONSchema(schema, { io: 'input' }) as {
      properties: Record<string, Record<string, unknown>>;
      $defs: Record<string, Record<string, unknown>>;
    };
    expect(json.$defs.StrictBodyRange).toMatchObject({ description: 'a range', additionalProperties: false });
    // The original schema is untouched: responses built from it still strip.
    expect(Base.parse({ min: 1, max: 2, zz: 1 })).toEqual({ min: 1, max: 2, tags: [] });
  });

  it('refuses an intersection of objects at definition (each strict side would refuse the other)', () => {
    expect(() => strictBody(z.intersection(z.object({ a: z.string() }), z.object({ b: z.string() })))).toThrow(/extend/);
    expect(() => strictBody(z.intersection(z.string(), z.string().min(1)))).not.toThrow();
  });
});
