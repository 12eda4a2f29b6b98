// Every embedded database opens here, with the extensions the migrations create (pg_trgm for the
// staff's address search): a PGlite opened without them cannot read a data directory that uses them.
import { PGlite, type PGliteOptions } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'

export const PGLITE_EXTENSIONS = { pg_trgm }

/** a PGlite on `dir` (in memory without one), ready */
export async function openPglite (dir?: string, opts: Omit<PGliteOptions, 'extensions' | 'dataDir'> = {}): Promise<PGlite> {
  return await PGlite.create(dir, { ...opts, extensions: PGLITE_EXTENSIONS })
}
