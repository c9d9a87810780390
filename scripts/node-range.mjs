// The Node.js versions this project runs on, checked against package.json `engines.node` (the one place the
// range is written). Pure JS without node: imports, so the suite (inside workerd) tests the same function
// `npm start` runs. Only the shapes that range uses are understood: `A || B`, each `^X.Y.Z` or `>=X.Y.Z`;
// anything else throws, so a range this check would misread cannot slip in.

const parse = (version) => {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(version.trim());
  if (!m) throw new Error(`not a version: ${JSON.stringify(version)}`);
  return [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
};

const compare = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** Whether `version` (e.g. process.versions.node) lies in `range` (e.g. `^20.19.0 || >=22.12.0`). */
export function satisfies(version, range) {
  const v = parse(version);
  return range.split('||').some((part) => {
    const m = /^\s*(\^|>=)\s*(\S+)\s*$/.exec(part);
    if (!m) throw new Error(`unsupported engines range: ${JSON.stringify(range)}`);
    const min = parse(m[2]);
    // ^X.Y.Z: at least X.Y.Z within major X (Node's majors are never 0).
    return compare(v, min) >= 0 && (m[1] === '>=' || v[0] === min[0]);
  });
}

/** The message `npm start` stops with when the running Node.js is outside the range, else undefined. */
export function nodeVersionProblem(version, range) {
  if (satisfies(version, range)) return undefined;
  return (
    `Node.js ${version} is not supported: this project needs Node.js ${range} (package.json "engines"; ` +
    'the versions vite, vitest, wrangler and the lint tools accept). Switch to a supported version (README, "Requirements").'
  );
}
