// The reference rail's Worker: its configuration, and the Durable Object that keeps the instructions.
import { DurableObject } from 'cloudflare:workers';
import { handleRail, type Instruction, type Store } from './rail';

interface Env {
  STORE: DurableObjectNamespace<RailStore>;
  /** Optional service binding to the payments Worker (outcomes then go through it). */
  SERVICE?: Fetcher;
  SERVICE_URL: string;
  FUNDING_INSTRUCTIONS?: string;
  RAIL_SECRET?: string;
  IDENTITY_PROVIDER_SECRET?: string;
  ADMIN_PASSWORD?: string;
}

/** Every instruction by its id, and an index by arrival for the page. */
export class RailStore extends DurableObject implements Store {
  async get(key: string): Promise<Instruction | undefined> {
    return this.ctx.storage.get<Instruction>(`k:${key}`);
  }

  async put(item: Instruction): Promise<void> {
    await this.ctx.storage.put({ [`k:${item.key}`]: item, [`t:${item.receivedAt}:${item.key}`]: item.key });
  }

  async list(limit: number): Promise<Instruction[]> {
    const keys = [...(await this.ctx.storage.list<string>({ prefix: 't:', reverse: true, limit })).values()];
    const items = await this.ctx.storage.get<Instruction>(keys.map((k) => `k:${k}`));
    return keys.map((k) => items.get(`k:${k}`)).filter((i) => i !== undefined);
  }
}

export default {
  fetch(request, env) {
    const store = env.STORE.get(env.STORE.idFromName('rail')) as unknown as Store;
    return handleRail(request, store, {
      railSecret: env.RAIL_SECRET,
      identitySecret: env.IDENTITY_PROVIDER_SECRET,
      serviceUrl: env.SERVICE_URL.replace(/\/+$/, ''),
      send: (outcome) => (env.SERVICE ? env.SERVICE.fetch(outcome) : fetch(outcome)),
      adminPassword: env.ADMIN_PASSWORD,
      fundingInstructions: JSON.parse(env.FUNDING_INSTRUCTIONS ?? '{}') as Record<string, Record<string, unknown>>,
    });
  },
} satisfies ExportedHandler<Env>;
