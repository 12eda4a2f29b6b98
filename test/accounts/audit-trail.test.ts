// The audit trail's guard and retention (docs/operations.md, Audit trail): rows are written as
// pir_audit_writer, which may insert and can neither update nor delete; an application role that is
// not the table's owner, granted what docs/operations.md grants it, adds rows only through
// audit_record and cannot touch existing ones directly; the retention deletes rows older than
// AUDIT_RETENTION_DAYS, keeps newer ones, and never anything younger than 30 days.
import t from '../tap.ts'
import { randomBytes } from 'node:crypto'
import { sql } from 'drizzle-orm'
import { build } from '../helper.ts'
import { FAST_ARGON2 } from './support.ts'
import { createEmailHasher } from '../../src/services/accounts/audit.ts'

const DAY_MS = 24 * 3600 * 1000

t.test('pir_audit_writer inserts and cannot update or delete; a non-owner application role writes only through audit_record', async (t) => {
  const app = await build(t, FAST_ARGON2)
  const { db } = app.database
  const marker = `trail-${randomBytes(4).toString('hex')}`

  /** one statement under `role` in its own transaction: 'ok', or the SQLSTATE it failed with */
  async function asRole (role: string, statement: string): Promise<string> {
    try {
      await db.transaction(async (tx) => {
        await tx.execute(sql.raw(`set local role ${role}`))
        await tx.execute(sql.raw(statement))
      })
      return 'ok'
    } catch (err) {
      for (let e = err as { code?: string, cause?: unknown } | undefined; e; e = e.cause as typeof e) if (e.code) return e.code
      throw err
    }
  }

  const [owner] = await app.database.query<{ owner: string, definer: boolean }>(
    "select pg_get_userbyid(proowner) as owner, prosecdef as definer from pg_proc where proname = 'audit_record'")
  t.same(owner, { owner: 'pir_audit_writer', definer: true }, 'audit_record runs as pir_audit_writer')

  t.equal(await asRole('pir_audit_writer', `insert into audit_events (kind, ip) values ('${marker}', '192.0.2.1')`), 'ok', 'the writer inserts')
  t.equal(await asRole('pir_audit_writer', `update audit_events set ip = null where kind = '${marker}'`), '42501', 'and may not update')
  t.equal(await asRole('pir_audit_writer', `delete from audit_events where kind = '${marker}'`), '42501', 'nor delete')

  // the application's role as docs/operations.md sets it up beside an owner that migrates
  const appRole = `pir_app_test_${randomBytes(4).toString('hex')}`
  await app.database.exec(`create role ${appRole} nologin; grant select on audit_events to ${appRole}`)
  t.teardown(async () => {
    await app.database.exec(`revoke all on audit_events from ${appRole}; drop role ${appRole}`)
  })
  t.equal(await asRole(appRole, `select audit_record('${marker}', null, '192.0.2.2', 'ua', null)`), 'ok', 'the application role records through the function')
  t.equal(await asRole(appRole, `insert into audit_events (kind) values ('${marker}')`), '42501', 'not directly')
  t.equal(await asRole(appRole, `update audit_events set ip = null where kind = '${marker}'`), '42501', 'it cannot rewrite a row')
  t.equal(await asRole(appRole, `delete from audit_events where kind = '${marker}'`), '42501', 'nor delete one')
  t.equal(await asRole(appRole, 'select audit_prune(now())'), 'ok', 'the retention function runs for it')
  const rows = await app.database.query<{ ip: string }>('select ip from audit_events where kind = $1 order by id', [marker])
  t.same(rows, [{ ip: '192.0.2.1' }, { ip: '192.0.2.2' }], 'both rows are there, unchanged, and pruning at "now" removed neither')
})

t.test('the retention deletes rows older than AUDIT_RETENTION_DAYS and keeps the newer ones', async (t) => {
  const app = await build(t, { ...FAST_ARGON2, AUDIT_RETENTION_DAYS: '90' })
  const marker = `retention-${randomBytes(4).toString('hex')}`
  const ages = [400, 91, 89, 1]
  for (const age of ages) {
    await app.database.query('insert into audit_events (kind, ip, created_at) values ($1, $2, $3::timestamptz)',
      [marker, `age ${age}`, new Date(Date.now() - age * DAY_MS).toISOString()])
  }
  const removed = await app.services.audit.prune()
  t.ok(removed >= 2, 'the two old rows are counted')
  const left = await app.database.query<{ ip: string }>('select ip from audit_events where kind = $1 order by created_at', [marker])
  t.same(left, [{ ip: 'age 89' }, { ip: 'age 1' }], 'rows within 90 days stay, older ones are gone')
  t.equal(await app.services.audit.prune(), 0, 'a second run finds nothing')
})

t.test('a deleted address is still matched after MFA_ENCRYPTION_KEY is rotated, and only with a key', async (t) => {
  const before = createEmailHasher({ encryptionKey: 'the-first-mfa-key-0123456789abcdef0123', previousKeys: [] })
  const after = createEmailHasher({ encryptionKey: 'the-second-mfa-key-0123456789abcdef012', previousKeys: ['the-first-mfa-key-0123456789abcdef0123'] })
  const written = before.hash('Someone@Example.com ')
  t.match(written, /^[0-9a-f]{64}$/)
  t.equal(before.hash('someone@example.com'), written, 'the address is lower-cased and trimmed first')
  t.not(after.hash('someone@example.com'), written, 'a new key writes another hash')
  t.ok(after.candidates('someone@example.com').includes(written), 'the previous key still finds the old row')
  t.notOk(after.candidates('someone-else@example.com').includes(written), 'another address does not')
})
