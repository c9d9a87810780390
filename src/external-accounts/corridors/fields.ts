// The fields external account info is built from, with the reference's lengths, patterns and check rules.
import * as z from 'zod';
import { Address, CountryCode, DateOnly, Email, Phone, text } from '../../common/fields';
import { abaRoutingValid, BIC, clabeValid, ibanValid } from '../../common/identifiers';

/** The fields of external account info, with the reference's lengths and patterns and the public check rules. */

export const str = (min: number, max: number) => z.string().trim().min(min).max(max);

export const digits = (min: number, max: number) =>
  z
    .string()
    .min(min)
    .max(max)
    .regex(new RegExp(`^[0-9]{${min},${max}}$`), min === max ? `Must be ${min} digits` : `Must be ${min} to ${max} digits`);

export const accountNumber = str(1, 34);
export const bankName = str(1, 255);
export const provider = str(1, 255).meta({ description: 'The mobile money provider', example: 'M-PESA' });
export const bankAccountType = z.enum(['CHECKING', 'SAVINGS']);

export const swiftCode = z.string().min(8).max(11).regex(BIC, 'Must be an 8 or 11 character SWIFT/BIC code').meta({ example: 'DEUTDEFF' });

/**
 * The bank's BIC under both names: `swiftCode` (the reference) and `swiftBic` (clients generated from the
 * service's newer OpenAPI). Either or both; when both are given they must agree (`sameBic`).
 */
export const bic = {
  swiftCode: swiftCode.optional(),
  swiftBic: swiftCode.optional().meta({ description: 'The same BIC as swiftCode, under the name newer clients send' }),
};
export function sameBic(info: Record<string, unknown>, ctx: z.RefinementCtx): void {
  if (info.swiftCode !== undefined && info.swiftBic !== undefined && info.swiftCode !== info.swiftBic) {
    ctx.addIssue({ code: 'custom', path: ['swiftBic'], message: 'Must equal swiftCode when both are given' });
  }
}

/** An IBAN: the country's shape, its registered length and the mod-97 check digits. */
export const iban = (shape = /^[A-Z]{2}[0-9]{2}[A-Za-z0-9]{11,30}$/, length: [number, number] = [15, 34]) =>
  z
    .string()
    .min(length[0])
    .max(length[1])
    .regex(shape, `Must be an IBAN matching ${shape.source}`)
    .refine(ibanValid, 'Invalid IBAN: wrong check digits or length for its country');

/** A phone number in E.164 (`Phone`); `shape` narrows it to a country. */
export const phone = (shape?: RegExp) => (shape ? Phone.regex(shape, `Must match ${shape.source}`) : Phone);

export const routingNumber = z
  .string()
  .min(9)
  .max(9)
  .regex(/^[0-9]{9}$/, 'Must be a 9-digit ABA routing number')
  .refine(abaRoutingValid, 'Invalid ABA routing number: the check digit does not match')
  .meta({ example: '021000021' });

export const clabeNumber = z
  .string()
  .min(18)
  .max(18)
  .regex(/^[0-9]{18}$/, 'Must be an 18-digit CLABE')
  .refine(clabeValid, 'Invalid CLABE: the control digit does not match')
  .meta({ example: '032180000118359719' });

const contact = {
  email: Email.optional(),
  phoneNumber: phone().optional(),
  countryOfResidence: CountryCode.optional(),
  address: Address.optional(),
};

export const BusinessBeneficiary = z
  .object({
    beneficiaryType: z.literal('BUSINESS'),
    legalName: text(),
    registrationNumber: text(64).optional(),
    taxId: text(64).optional(),
    ...contact,
  })
  .meta({ id: 'BusinessBeneficiary' });

type ContactField = keyof typeof contact;

/**
 * The beneficiary of a bank account: an individual (`{Name}Beneficiary`, with the contact fields this
 * corridor requires and its extra fields) or a business.
 */
export function beneficiary(name: string, required: ContactField[] = [], extra: z.ZodRawShape = {}) {
  const fields: Record<string, z.ZodType> = { ...contact };
  for (const f of required) fields[f] = contact[f].unwrap();
  const individual = z
    .object({
      beneficiaryType: z.literal('INDIVIDUAL'),
      fullName: text(),
      birthDate: DateOnly.optional(),
      nationality: CountryCode.optional(),
      registrationNumber: text(64).optional().meta({ description: 'A national registration or identity number' }),
      ...fields,
      ...extra,
    })
    .meta({ id: `${name}Beneficiary` });
  return z.discriminatedUnion('beneficiaryType', [individual, BusinessBeneficiary]);
}

/** Colombian identity document types (cédula de ciudadanía, de extranjería, tarjeta de identidad, NIT, passport). */
export const copDocument = {
  documentType: z.enum(['CC', 'CE', 'TI', 'NIT', 'PP']).optional(),
  documentNumber: str(1, 50).optional(),
};
