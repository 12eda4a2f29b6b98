// DATABASE_PREPARE: on PostgreSQL, statements with parameters are prepared once per connection
// (src/db/prepared-statements.ts): Drizzle's queries, the service's own SQL and the import's
// transaction alike. Off, nothing is prepared (a pooler that cannot keep statements). The answers
// are the same either way.
import t from '../tap.ts'
import { eq } from 'drizzle-orm'
import { loadConfig } from '../../src/config.ts'
import { createDatabase } from '../../src/db/client.ts'
import { migrateDatabase } from '../../src/db/migrate.ts'
import { users } from '../../src/db/schema/index.ts'
import { onPostgres } from '../helper.ts'
import { childDatabase, tempDir } from './support.ts'

t.test('DATABASE_PREPARE: on unless set to off', async (t) => {
  const dataDir = tempDir(t)
  t.equal(loadConfig({ DATA_DIR: dataDir }).databasePrepare, true)
  t.equal(loadConfig({ DATA_DIR: dataDir, DATABASE_PREPARE: 'off' }).databasePrepare, false)
  t.equal(loadConfig({ DATA_DIR: dataDir, DATABASE_PREPARE: 'on' }).databasePrepare, true)
})

const skip = onPostgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL): PGlite runs in the process, with no statements to prepare'

for (const prepare of [true, false]) {
  t.test(`prepare ${prepare ? 'on' : 'off'}: what the connection holds, and the same answers`, { skip }, async (t) => {
    const { url } = await childDatabase(t)
    await migrateDatabase({ url })
    // one connection, so that pg_prepared_statements (per session) sees every statement
    const one = await createDatabase({ url, max: 1, prepare })
    t.teardown(() => one.close())
    const { db } = one

    const email = 'prepared@example.com'
    const byEmail = () => db.select({ id: users.id, email: users.email }).from(users).where(eq(users.email, email))
    t.same(await byEmail(), [], 'no such user yet')
    // a Drizzle transaction, and a nested one (a savepoint)
    const id = await db.transaction(async (tx) => {
      const [row] = await tx.insert(users).values({ email }).returning({ id: users.id })
      await tx.transaction(async (inner) => {
        await inner.update(users).set({ confirmedAt: new Date(0) }).where(eq(users.id, row.id))
      })
      return row.id
    })
    t.same(await byEmail(), [{ id, email }], 'Drizzle reads what it wrote')
    t.same(await byEmail(), [{ id, email }], 'and again')
    // the service's own SQL, and the import's way in (a transaction of postgres.js)
    t.same(await one.query('select email from users where id = $1', [id]), [{ email }])
    const [inTx] = await one.sql!.begin((tx) => tx.unsafe('select confirmed_at from users where email = $1', [email]))
    t.equal(new Date(inTx.confirmed_at as string).getTime(), 0, 'the nested transaction committed')

    const held = (await one.query<{ statement: string }>('select statement from pg_prepared_statements')).map((r) => r.statement)
    const has = (fragment: string) => held.some((s) => s.includes(fragment))
    if (prepare) {
      t.ok(has('from "users" where "users"."email" = $1'), 'Drizzle\'s select is prepared')
      t.ok(has('insert into "users"'), 'so is its insert in a transaction')
      t.ok(has('update "users" set'), 'and its update in a savepoint')
      t.ok(has('select email from users where id = $1'), 'the service\'s own SQL')
      t.ok(has('select confirmed_at from users where email = $1'), 'a statement in a postgres.js transaction')
      t.equal(held.filter((s) => s.includes('from "users" where "users"."email" = $1')).length, 1, 'prepared once, run three times')
    } else {
      t.same(held, [], 'nothing prepared')
    }
  })
}
