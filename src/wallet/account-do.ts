import { DurableObject } from 'cloudflare:workers';
import type { Env } from '../env';

/**
 * One per embedded-wallet internal account: the place where anything that must happen exactly once
 * for that account (consuming a requestId, issuing a rate-limited challenge) is serialised.
 */
export class AccountDO extends DurableObject<Env> {
  /** The account this object serves, recorded at first use. */
  async accountId(): Promise<string | undefined> {
    return this.ctx.storage.kv.get<string>('accountId');
  }
}
