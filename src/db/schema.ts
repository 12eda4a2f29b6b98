// Every table of the service, declared once, in a file per concept under src/db/schema/. Change a
// table there, then `npm run db:generate` (drizzle-kit reads this index).
export * from './schema/accounts.ts'
export * from './schema/profile-data.ts'
export * from './schema/reports.ts'
export * from './schema/billing.ts'
export * from './schema/second-factors.ts'
export * from './schema/programs.ts'
export * from './schema/watches-alerts.ts'
export * from './schema/staff.ts'
