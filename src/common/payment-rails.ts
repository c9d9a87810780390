// The payment rail enum (bank and wallet networks) shared by corridors and rates.
import * as z from 'zod';

export const PaymentRail = z
  .enum([
    'ACH',
    'BANK_TRANSFER',
    'FAST',
    'FASTER_PAYMENTS',
    'FEDNOW',
    'MOBILE_MONEY',
    'PAYNOW',
    'PIX',
    'RTP',
    'SEPA',
    'SEPA_INSTANT',
    'SPEI',
    'SWIFT',
    'UPI',
    'WIRE',
  ])
  .meta({ id: 'PaymentRail', description: 'The payment network that moves the funds' });
export type PaymentRail = z.infer<typeof PaymentRail>;
