// The invitation schemas: the UMA invitation, its create and claim requests, its code and the platform's list.
import * as z from 'zod';
import { InvitationStatus } from '../db/enums';
import { DateTime } from '../common/time';
import { text } from '../common/fields';
import { CurrencyAmount } from '../accounts/internal-schema';
import { UmaAddress } from '../customers/schema';
import { cursorParam, limitParam, pageOf } from '../http/pagination';

export const UmaInvitation = z
  .object({
    code: z.string().meta({ description: 'The unique code of the invitation (its lookup key)', example: '3f9a1c07b2e4d658' }),
    createdAt: DateTime,
    claimedAt: DateTime.optional().meta({ description: 'When it was claimed, once CLAIMED' }),
    url: z.string().meta({
      description: "Where the invitee opens it: https://<the inviting platform's umaDomain>/i/<code> (the platform serves that page)",
      example: 'https://uma.acme.com/i/3f9a1c07b2e4d658',
    }),
    expiresAt: DateTime.optional().meta({ description: 'When it expires, if it does' }),
    inviterUma: z.string().meta({ description: 'The UMA address of the inviting customer', example: '$inviter@uma.domain' }),
    inviteeUma: z
      .string()
      .optional()
      .meta({ description: 'The UMA address of the customer who claimed it', example: '$invitee@uma.domain' }),
    status: InvitationStatus.meta({ description: 'PENDING, CLAIMED, EXPIRED (a pending one past expiresAt) or CANCELLED' }),
    firstName: z.string().optional().meta({ description: 'The first name shown with the invitation', example: 'Jane' }),
    amountToSend: CurrencyAmount.optional().meta({
      description:
        "What the inviter means to send once it is claimed, in the inviting customer's first currency: for display; the inviting platform sends it after INVITATION.CLAIMED",
    }),
  })
  .meta({ id: 'UmaInvitation' });
export type UmaInvitationView = z.infer<typeof UmaInvitation>;

export const UmaInvitationCreateRequest = z
  .object({
    inviterUma: UmaAddress.meta({ description: "The UMA address of the inviting customer (one of this platform's, any letter case)" }),
    firstName: text(100).optional().meta({ description: 'A first name to show with the invitation', example: 'Alice' }),
    amountToSend: z
      .int()
      .min(1)
      .optional()
      .meta({ description: "An amount to send on claim, in the smallest unit of the inviting customer's first currency (display only)" }),
    expiresAt: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({ description: 'When the invitation expires (must be in the future); none: it does not' }),
  })
  .meta({ id: 'UmaInvitationCreateRequest' });
export type UmaInvitationCreate = z.infer<typeof UmaInvitationCreateRequest>;

export const UmaInvitationClaimRequest = z
  .object({
    inviteeUma: UmaAddress.meta({ description: "The UMA address of the claiming customer: one of the calling platform's customers" }),
  })
  .meta({ id: 'UmaInvitationClaimRequest' });

export const InvitationCodeParams = z.object({ invitationCode: z.string().max(64) });

export const UmaInvitationList = pageOf(UmaInvitation, 'UmaInvitationListResponse');
export const UmaInvitationListQuery = z.object({ limit: limitParam, cursor: cursorParam });
