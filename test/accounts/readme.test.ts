import { describe, expect, it } from 'vitest';
import { corridorTable } from '../../src/external-accounts/corridors';
import page from '../../docs/guides/external-accounts.md?raw';

describe('The corridor table of docs/guides/external-accounts.md', () => {
  it('is the table the corridor declarations render (npm run corridors rewrites it)', () => {
    expect(page).toContain(`<!-- corridor table: npm run corridors -->\n${corridorTable()}\n<!-- end of corridor table -->`);
    expect(corridorTable().split('\n')).toHaveLength(2 + 44);
  });
});
