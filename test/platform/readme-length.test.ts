import { describe, expect, it } from 'vitest';
import readme from '../../README.md?raw';

/** The README is read first and whole: what this is, how to run it, where the rest is (docs/). */
describe('README.md', () => {
  it('is at most 250 lines', () => {
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(250);
  });

  it('says how to start, run the quickstart, and find the docs and the tests', () => {
    for (const text of ['npm install', 'npm start', 'bash docs/quickstart.sh', 'docs/README.md', 'npm test', 'npm run test:fast'])
      expect(readme).toContain(text);
    expect(readme).toContain('npx vitest run --config test/vitest.config.ts test/');
  });
});
