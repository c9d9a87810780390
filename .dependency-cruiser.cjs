// The floors of src/ (README, "Code layout"): each floor imports only the floors below it, never a floor
// above it or a neighbour on its own floor. `npm test` runs this before the suite (`npm run lint:deps`).
const floors = [
  ['crypto', 'common'],
  ['db', 'env.ts'],
  ['http'],
  ['ledger'],
  ['webhooks'],
  ['transitions'],
  ['platform'],
  ['accounts'],
  ['wallet'],
  ['customers'],
  ['kyc'],
  ['external-accounts'],
  ['documents', 'uma'],
  ['payments'],
  ['agents'],
  ['jobs'],
  ['sandbox'],
  ['webhook-catalog.ts'],
  ['router.ts', 'console'],
  ['mcp'],
  ['index.ts'],
];

const rooms = (names) => `^src/(${names.map((n) => n.replace('.', '\\.')).join('|')})($|/)`;

// Every import counts, type-only ones too (`tsPreCompilationDeps: true` keeps `import type` and `export type`
// in the graph that TypeScript would erase), so a floor rule fails on an upward type-only import as on any
// other: db/ and http/ import no area even by type. The one upward import allowed is type-only, for its stated
// reason: env.ts names the Durable Object class its binding serves.
const typeOnly = [{ from: '^src/env\\.ts$', to: '^src/wallet/account-do\\.ts$' }];

const forbidden = floors.flatMap((floor, i) => {
  const above = floors.slice(i + 1).flat();
  const rules = [];
  if (above.length) {
    const exceptions = typeOnly.filter((t) =>
      floor.some((room) => new RegExp(t.from).test(`src/${room}${room.endsWith('.ts') ? '' : '/'}`)),
    );
    rules.push({
      name: `floor-${floor.join('+')}`,
      comment: `${floor.join(', ')} may not import a floor above`,
      severity: 'error',
      from: { path: rooms(floor) },
      to: { path: rooms(above), ...(exceptions.length ? { pathNot: exceptions.map((t) => t.to) } : {}) },
    });
    for (const t of exceptions) {
      rules.push({
        name: `type-only-${floor.join('+')}`,
        comment: `${t.from} may import ${t.to} for types only`,
        severity: 'error',
        from: { path: t.from },
        to: { path: t.to, dependencyTypesNot: ['type-only'] },
      });
    }
  }
  for (const room of floor) {
    const neighbours = floor.filter((r) => r !== room);
    if (neighbours.length) {
      rules.push({
        name: `neighbours-${room}`,
        comment: `${room} may not import its neighbours on the same floor`,
        severity: 'error',
        from: { path: rooms([room]) },
        to: { path: rooms(neighbours) },
      });
    }
  }
  return rules;
});

module.exports = {
  forbidden: [
    ...forbidden,
    {
      name: 'no-circular',
      comment: 'no import cycles (type-only imports erase at build time, so they cannot form one)',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true, pathNot: '^cloudflare:' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.d\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
