// The corridors as the API uses them: the account-info variants, and the corridor of an account type.
import * as z from 'zod';
import type { PaymentRail } from '../../common/payment-rails';
import { CORRIDORS } from './catalogue';
import { textSuffix, type Corridor, type NetworkFee } from './define';

export type { NetworkFee };

type Corridors = typeof CORRIDORS;
/** The tuple of one schema of every corridor, for `z.discriminatedUnion`. */
type SchemasOf<T extends readonly unknown[], F extends string> = {
  -readonly [K in keyof T]: T[K] extends { [P in F]: infer V } ? V : never;
};
export type AccountType = Corridors[number]['accountType'];

const BY_TYPE = new Map<string, Corridor>(CORRIDORS.map((c) => [c.accountType, c as unknown as Corridor]));

/** The corridor of an account type (undefined for a type this release does not know). */
export const corridorOf = (accountType: string): Corridor | undefined => BY_TYPE.get(accountType);

/** The account-info variants accepted on creation (reference `ExternalAccountCreateInfoOneOf`). */
export const ExternalAccountCreateInfo = z
  .discriminatedUnion('accountType', CORRIDORS.map((c) => c.create) as unknown as SchemasOf<Corridors, 'create'>)
  .meta({ id: 'ExternalAccountCreateInfoOneOf' });
export type ExternalAccountCreateInfo = z.infer<typeof ExternalAccountCreateInfo>;

/** The account info of an external account as returned, with `paymentRails` and `countries` for bank accounts (reference `ExternalAccountInfoOneOf`). */
export const ExternalAccountInfo = z
  .discriminatedUnion('accountType', CORRIDORS.map((c) => c.view) as unknown as SchemasOf<Corridors, 'view'>)
  .meta({ id: 'ExternalAccountInfoOneOf' });

/** The field holding an account info's primary identifier (account number, IBAN, CLABE, phone, PIX key, address...). */
export function identifierField(info: { accountType: string }): string {
  return corridorOf(info.accountType)!.identifierField(info as Record<string, unknown>);
}

export function identifierOf(info: { accountType: string }): string {
  return String((info as Record<string, unknown>)[identifierField(info)]);
}

/** The sandbox magic suffix of an account's primary identifier; null: no magic. */
export function sandboxSuffix(accountType: string, identifier: string): string | null {
  return (corridorOf(accountType)?.suffixOf ?? textSuffix)(identifier);
}

type StoredAccount = { accountType: string; accountInfo: Record<string, unknown> };

/** The rails an account is paid on, the default first: those chosen at creation, else its type's; none for wallets. */
export const railsOf = (account: StoredAccount): readonly PaymentRail[] =>
  corridorOf(account.accountType)?.railsOf(account.accountInfo) ?? [];

/** The account info as shown: as stored, with its rails and countries (chosen, else derived) for bank accounts. */
export const shownInfo = (account: StoredAccount): Record<string, unknown> => ({
  ...account.accountInfo,
  ...corridorOf(account.accountType)?.derived(account.accountInfo),
});

/** Whether an account of this type can hold `currency`; SWIFT accounts hold any fiat currency. */
export function holdsCurrency(accountType: string, currency: string, isFiat: (code: string) => boolean): boolean {
  const c = corridorOf(accountType)!;
  return c.currency === null ? isFiat(currency) : c.currency === currency;
}

/** The default payout rail of a currency: its own corridor's first rail, otherwise SWIFT. */
export function defaultRail(currency: string): PaymentRail {
  return CORRIDORS.find((c) => c.currency === currency && c.rails.length > 0 && c.accountType.startsWith(currency))?.rails[0] ?? 'SWIFT';
}

const IDENTIFIER_NAMES: Record<string, string> = {
  iban: 'IBAN',
  accountNumber: 'account number',
  phoneNumber: 'phone number',
  clabeNumber: 'CLABE',
  pixKey: 'PIX key',
  vpa: 'UPI address (VPA)',
  address: 'wallet address',
  lightningAddress: 'lightning address',
  bolt12: 'BOLT 12 offer',
  invoice: 'BOLT 11 invoice',
};

/** The corridor table of docs/guides/external-accounts.md, rendered from the declarations so the two cannot drift. */
export function corridorTable(): string {
  const rows = CORRIDORS.map((c) => {
    const ids = c.identifier.map((f) => `\`${f}\` (${IDENTIFIER_NAMES[f] ?? f})`).join(', else ');
    const rails = c.rails.length ? c.rails.join(', ') : 'its network';
    return `| \`${c.accountType}\` | ${c.currency ?? 'any fiat'} | ${ids} | ${rails} |`;
  });
  return ['| Account type | Currency | Primary identifier (sandbox suffix) | Rails (default first) |', '|---|---|---|---|', ...rows].join(
    '\n',
  );
}

/** A wallet corridor with the chain it travels on. */
export type WalletCorridor = Corridor & { network: NetworkFee };

/** The wallet corridors by the name of their chain (the reference's `cryptoNetwork`), in catalogue order. */
export const WALLET_NETWORKS: ReadonlyMap<string, WalletCorridor> = new Map(
  (CORRIDORS as readonly Corridor[]).filter((c): c is WalletCorridor => c.network !== undefined).map((c) => [c.network.network, c]),
);

/** Why `address` is no wallet address of the corridor (as its account info would refuse it), or null when it is one. */
export function walletAddressProblem(c: Corridor, address: string): string | null {
  let problem: string | null = null;
  for (const field of c.identifier) {
    const parsed = c.create.safeParse({ accountType: c.accountType, [field]: address });
    if (parsed.success) return null;
    problem ??= parsed.error.issues[0]?.message ?? 'Invalid address';
  }
  return problem;
}
