import * as z from 'zod';

export const CountryCode = z
  .string()
  .regex(/^[A-Z]{2}$/, 'Must be an ISO 3166-1 alpha-2 country code such as US')
  .meta({ example: 'US' });

/** A calendar date, YYYY-MM-DD. */
export const DateOnly = z.iso.date({ error: 'Must be a date in YYYY-MM-DD format' }).meta({ example: '1990-01-15' });

export const Email = z.email({ error: 'Must be an e-mail address' }).max(255);

export const Address = z
  .strictObject({
    line1: z.string().trim().min(1).max(255),
    line2: z.string().trim().max(255).optional(),
    city: z.string().trim().max(255).optional(),
    state: z.string().trim().max(255).optional(),
    postalCode: z.string().trim().min(1).max(32),
    country: CountryCode,
  })
  .meta({ id: 'Address' });
export type Address = z.infer<typeof Address>;

/** A `true`/`false` query parameter; anything else is a 400. */
export const BooleanParam = z.enum(['true', 'false'], { error: 'Must be true or false' }).transform((v) => v === 'true');

/** A short free-text field (names, numbers) with surrounding blanks trimmed. */
export const text = (max = 255) => z.string().trim().min(1).max(max);
