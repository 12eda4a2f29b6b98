// .ci/check-migrations (docs/operations.md, Upgrades with two versions live) on a repository of its
// own: a release's new migration may not drop or rename a table or column that the previous release
// still declares in src/db/schema/; once a release has stopped declaring it, a later one may drop it.
// The previous release is a tag, or the given base.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from '../tap.ts'
import type { Tap } from '../helper.ts'

const CHECK = fileURLToPath(new URL('../../.ci/check-migrations', import.meta.url))
const GIT_ENV = { ...process.env, GIT_AUTHOR_NAME: 'ci', GIT_AUTHOR_EMAIL: 'ci@example.com', GIT_COMMITTER_NAME: 'ci', GIT_COMMITTER_EMAIL: 'ci@example.com' }

const USERS_WITH_NICKNAME = `import { pgTable, text, uuid } from 'drizzle-orm/pg-core'
export const users = pgTable('users', {
  id: uuid('id').primaryKey(),
  nickname: text('nickname')
})
export const oldThings = pgTable('old_things', { id: uuid('id').primaryKey() })
`
const USERS_WITHOUT = `import { pgTable, uuid } from 'drizzle-orm/pg-core'
export const users = pgTable('users', {
  id: uuid('id').primaryKey()
})
`

function repository (t: Tap) {
  const dir = mkdtempSync(join(tmpdir(), 'pir-check-migrations-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { env: GIT_ENV, encoding: 'utf8' }).trim()
  git('init', '-q', '-b', 'main')
  mkdirSync(join(dir, 'drizzle'))
  mkdirSync(join(dir, 'src/db/schema'), { recursive: true })
  const write = (path: string, text: string) => writeFileSync(join(dir, path), text)
  const commit = (message: string) => { git('add', '-A'); git('commit', '-q', '-m', message); return git('rev-parse', 'HEAD') }
  const check = (...args: string[]) => {
    const r = spawnSync(CHECK, ['--repo', dir, ...args], { encoding: 'utf8' })
    return { code: r.status, out: `${r.stdout}${r.stderr}` }
  }
  return { git, write, commit, check }
}

t.test('a drop or rename in the release that stops using the column or table is refused', async (t) => {
  const repo = repository(t)
  repo.write('src/db/schema/users.ts', USERS_WITH_NICKNAME)
  repo.write('drizzle/0000_init.sql', 'CREATE TABLE "users" ("id" uuid PRIMARY KEY, "nickname" text);\nCREATE TABLE "old_things" ("id" uuid PRIMARY KEY);\n')
  const release = repo.commit('release 1')

  // an addition is always fine (expand)
  repo.write('drizzle/0001_add.sql', 'ALTER TABLE "users" ADD COLUMN "bio" text;--> statement-breakpoint\nALTER TABLE "users" ALTER COLUMN "bio" DROP NOT NULL;\n')
  let r = repo.check('--base', release)
  t.equal(r.code, 0, r.out)
  t.match(r.out, /1 new migration\(s\)/)

  // the code stops using nickname and old_things, and the same release drops them (contract too early)
  repo.write('src/db/schema/users.ts', USERS_WITHOUT)
  repo.write('drizzle/0002_contract.sql', 'ALTER TABLE "users" DROP COLUMN "nickname";--> statement-breakpoint\nDROP TABLE "old_things" CASCADE;\n')
  r = repo.check('--base', release)
  t.equal(r.code, 1, 'refused')
  t.match(r.out, /drizzle\/0002_contract\.sql drops column users\.nickname, which the previous release/)
  t.match(r.out, /drizzle\/0002_contract\.sql drops table old_things/)
  t.match(r.out, /docs\/operations\.md, Upgrades with two versions live/)

  // renames are the same: the previous release still reads the old name
  repo.write('drizzle/0002_contract.sql', 'ALTER TABLE "public"."users" RENAME COLUMN "nickname" TO "handle";\nALTER TABLE old_things RENAME TO older_things;\n')
  r = repo.check('--base', release)
  t.equal(r.code, 1)
  t.match(r.out, /renames column users\.nickname/)
  t.match(r.out, /renames table old_things/)

  // a constraint, a default or NOT NULL dropped is no column
  repo.write('drizzle/0002_contract.sql', 'ALTER TABLE "users" DROP CONSTRAINT "users_x_fk";\nALTER TABLE "users" ALTER COLUMN "nickname" DROP DEFAULT;\n')
  r = repo.check('--base', release)
  t.equal(r.code, 0, r.out)
})

t.test('a later release may drop what an earlier one stopped using; the base defaults to the last tag', async (t) => {
  const repo = repository(t)
  repo.write('src/db/schema/users.ts', USERS_WITH_NICKNAME)
  repo.write('drizzle/0000_init.sql', 'CREATE TABLE "users" ("id" uuid PRIMARY KEY, "nickname" text);\n')
  repo.commit('release 1')
  repo.git('tag', 'v1')
  // release 2: the code no longer reads nickname (nor old_things); the schema keeps them
  repo.write('src/db/schema/users.ts', USERS_WITHOUT)
  repo.commit('release 2: stop using nickname')
  repo.git('tag', 'v2')
  // release 3 drops them: v2's instances never read them
  repo.write('drizzle/0001_drop.sql', 'ALTER TABLE "users" DROP COLUMN IF EXISTS "nickname";\nDROP TABLE IF EXISTS "old_things";\n')
  let r = repo.check()
  t.equal(r.code, 0, r.out)
  t.match(r.out, /since the last tag, v2/)

  // against v1 (whose code still reads them) the same migration is refused
  r = repo.check('--base', 'v1')
  t.equal(r.code, 1, r.out)
  t.match(r.out, /drops column users\.nickname/)
})
