import { describe, expect, it } from 'vitest';
import pkg from '../../package.json';
import readme from '../../README.md?raw';
import devScript from '../../scripts/dev.mjs?raw';
import { nodeVersionProblem, satisfies } from '../../scripts/node-range.mjs';

/**
 * The Node.js range is written once, in package.json `engines.node`: it is what vite, vitest, wrangler and
 * the lint tools accept, `npm start` refuses anything else before it runs, and the README states it.
 */
describe('supported Node.js versions', () => {
  const range = pkg.engines.node;

  it.each(['20.18.0', '21.7.0', '22.11.0', '22.12.0', '23.11.0', '18.20.4'])('package.json refuses %s', (version) => {
    expect(satisfies(version, range)).toBe(false);
    expect(nodeVersionProblem(version, range)).toBe(
      `Node.js ${version} is not supported: this project needs Node.js ${range} (package.json "engines"; ` +
        'the versions vite, vitest, wrangler and the lint tools accept). Switch to a supported version (README, "Requirements").',
    );
  });

  it.each(['20.19.0', '20.20.2', '22.13.0', '22.21.1', '24.0.0', '25.1.0'])('package.json accepts %s', (version) => {
    expect(satisfies(version, range)).toBe(true);
    expect(nodeVersionProblem(version, range)).toBeUndefined();
  });

  it('reads the range it is given: ^ stays within its major, >= has no ceiling', () => {
    expect(satisfies('22.12.0', '^20.19.0 || >=22.12.0')).toBe(true);
    expect(satisfies('21.7.0', '^20.19.0 || >=22.12.0')).toBe(false);
    expect(satisfies('v20.19.1', '^20.19')).toBe(true);
    expect(satisfies('21.0.0', '^20.19')).toBe(false);
  });

  it('throws on a range shape it cannot read, rather than misreading it', () => {
    for (const bad of ['>20', '~20.19.0', '20.x', '>=20 <23', '']) expect(() => satisfies('20.19.0', bad)).toThrow();
  });

  it('npm start checks before anything else is imported, and the README states the same range', () => {
    expect(devScript.split('\n').find((line) => line.startsWith('import '))).toBe("import './check-node.mjs';");
    expect(readme).toContain(`Node.js \`${range}\``);
  });
});
