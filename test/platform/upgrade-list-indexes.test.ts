import { describe, expect, it } from 'vitest';
import { pagesAcrossUpgrade } from '../support/upgrade-lists';

describe('upgrading a database of release 0038 (list indexes without the id, 0039)', () => {
  it('pages every transaction and quote list, ties of one createdAt included, as this release does', async () => {
    await pagesAcrossUpgrade('0038_', (sql, name) => expect(sql, name).toMatch(/`created_at`\)( WHERE .*)?$/));
  });
});
