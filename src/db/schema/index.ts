// Every table of the service, declared once, in a file per concept in this folder; this index is what
// the code imports. Change a table in its file, then `npm run db:generate` (drizzle-kit reads the
// whole folder, drizzle.config.ts).
export * from './accounts.ts'
export * from './profile-data.ts'
export * from './reports.ts'
export * from './billing.ts'
export * from './second-factors.ts'
export * from './programs.ts'
export * from './watches-alerts.ts'
export * from './staff.ts'
