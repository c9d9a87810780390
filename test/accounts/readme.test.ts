import { describe, expect, it } from 'vitest';
import { corridorTable } from '../../src/external-accounts/corridors';
import readme from '../../README.md?raw';

describe('README corridor table', () => {
  it('is the table the corridor declarations render (npm run corridors rewrites it)', () => {
    expect(readme).toContain(`<!-- corridor table: npm run corridors -->\n${corridorTable()}\n<!-- end of corridor table -->`);
    expect(corridorTable().split('\n')).toHaveLength(2 + 44);
  });
});
