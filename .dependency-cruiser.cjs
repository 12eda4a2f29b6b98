// The direction of imports between the parts of src/ (docs/architecture.md, "Concepts and their
// direction"), checked by `npm run check:deps` in CI. A concept folder under src/services/ may import
// only the concepts its row names; together the rows form no cycle, so none can appear between
// folders. A new concept folder gets a row here (and in the docs' table) before it may import any
// other.
/** concept -> the concepts it may use */
const CONCEPTS = {
  caches: [],
  limits: [],
  operability: [],
  outbound: [],
  ingest: [],
  demo: ['ingest'],
  sessions: ['caches', 'limits'],
  billing: ['caches', 'limits'],
  mfa: ['sessions', 'caches', 'limits'],
  passkeys: ['sessions', 'caches', 'limits'],
  accounts: ['sessions', 'billing', 'mfa', 'passkeys', 'caches', 'limits'],
  reports: ['accounts', 'billing', 'webhooks', 'caches', 'limits'],
  watches: ['reports', 'billing', 'caches', 'limits'],
  alerts: ['watches', 'reports', 'accounts', 'webhooks', 'caches', 'limits'],
  streams: ['reports', 'alerts', 'sessions', 'caches'],
  images: ['outbound', 'caches', 'limits'],
  'api-keys': ['sessions', 'caches', 'limits'],
  idempotency: [],
  webhooks: ['outbound', 'caches', 'limits'],
  notices: ['accounts', 'sessions'],
  staff: ['accounts', 'billing', 'sessions', 'mfa', 'caches', 'limits']
}

const names = Object.keys(CONCEPTS)
const conceptRules = names.map((name) => ({
  name: `concept-${name}`,
  comment: `src/services/${name}/ may use only: ${CONCEPTS[name].join(', ') || 'no other concept'}`,
  severity: 'error',
  from: { path: `^src/services/${name}/` },
  to: { path: `^src/services/(?!(?:${[name, ...CONCEPTS[name]].join('|')})/)[^/]+/` }
}))

module.exports = {
  forbidden: [
    ...conceptRules,
    {
      name: 'concept-declared',
      comment: 'every folder under src/services/ has a row in CONCEPTS (.dependency-cruiser.cjs)',
      severity: 'error',
      from: { path: `^src/services/(?!(?:${names.join('|')})/)[^/]+/` },
      to: {}
    },
    {
      name: 'concept-files',
      comment: 'src/services/ holds concept folders only, no loose files',
      severity: 'error',
      from: { path: '^src/services/[^/]+[.]ts$' },
      to: {}
    },
    {
      name: 'services-below-routes',
      comment: 'services know no Fastify route, plugin or app: routes -> services, never back',
      severity: 'error',
      from: { path: '^src/services/' },
      to: { path: '^src/(?:routes|plugins|cli)/|^src/(?:app|server|startup)[.]ts$' }
    },
    {
      name: 'engine-pure',
      comment: 'the report engine is pure: it imports only itself and the schemas, no Node module',
      severity: 'error',
      from: { path: '^src/engine/' },
      to: { pathNot: '^src/engine/|^schemas/' }
    },
    {
      name: 'schemas-below-src',
      comment: 'schemas are the contract every layer reads: they import only schemas and libraries',
      severity: 'error',
      from: { path: '^schemas/' },
      to: { path: '^src/' }
    },
    {
      name: 'db-below-services',
      comment: 'the database layer uses no service, route or plugin',
      severity: 'error',
      from: { path: '^src/db/' },
      to: { path: '^src/(?:services|routes|plugins)/' }
    },
    {
      name: 'no-circular',
      comment: 'no import cycle between modules of src/ and schemas/ (type-only imports included)',
      severity: 'error',
      from: { path: '^(?:src|schemas)/' },
      to: { circular: true }
    }
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(?:node_modules|dist|test|bench|client|drizzle)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] }
  }
}
