// Common request fields: country codes, phone numbers, dates, e-mail addresses, postal addresses.
import * as z from 'zod';
import { COUNTRY_CODES } from './countries';
import { E164 } from './identifiers';

const COUNTRY_MESSAGE = 'Must be an ISO 3166-1 alpha-2 country code such as US';
export const CountryCode = z
  .string()
  .regex(/^[A-Z]{2}$/, COUNTRY_MESSAGE)
  .refine((c) => COUNTRY_CODES.has(c), COUNTRY_MESSAGE)
  .meta({ example: 'US' });

/** A phone number in E.164: `+`, a country code not starting with 0, 6 to 15 digits in all. */
export const Phone = z
  .string()
  .regex(E164, 'Must be a phone number in E.164 format such as +14155550192')
  .meta({ example: '+14155550192' });

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
