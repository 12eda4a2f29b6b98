// Advisory lock keys the service's transactions share (any bigint of our own).

/**
 * Held exclusively by an import's write transaction, so concurrent imports queue instead of
 * deadlocking on the same rows, and shared by a watch's creation, so a watch records its profiles'
 * data month either before an import's marking (which then marks it) or after its commit (whose months
 * it then counts as seen): never in between, where an import's new months would be missed
 * (docs/decisions/watches-and-alerts.md, Watches and alerts).
 */
export const IMPORT_LOCK = 7_410_551_923
