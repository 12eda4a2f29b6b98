// The second factor's guess budget (docs/decisions/accounts.md, Second factors): at most
// CODE_BUDGET wrong codes (TOTP or recovery) per account in any CODE_WINDOW_S, whatever happens
// between them. It is the account's own row of signin_failures, keyed `second-factor:<user id>` (an
// address always holds an @, so no sign-in row shares it): a password sign-in clears only its
// address's row and never this one, nor does a right code or a reset.
// A run of wrong codes goes on while each comes within CODE_WINDOW_S of the one before; once it
// holds CODE_BUDGET, every attempt is refused until CODE_WINDOW_S after its last. So any window of
// CODE_WINDOW_S sees codes of one run only, and at most CODE_BUDGET of them.
// Every attempt is claimed, counted as wrong, in one statement before the code is checked (the row
// lock serializes the claims, so parallel guesses cannot overrun it); a right code gives its own
// claim back, and only its own.
import type { Database } from '../../db/client.ts'

export const CODE_BUDGET = 10
export const CODE_WINDOW_S = 15 * 60

/** the account's row of signin_failures */
export const codeBudgetKey = (userId: string) => `second-factor:${userId}`
const keyOf = codeBudgetKey

// $1 the key, $2 now; updated_at holds the time of the run's last claim
const CLAIM = `with claim as (
    insert into signin_failures as f (email, failures, locked_until, updated_at) values ($1, 1, null, $2::timestamptz)
    on conflict (email) do update set
      failures = case when f.updated_at <= excluded.updated_at - make_interval(secs => ${CODE_WINDOW_S}) then 1 else f.failures + 1 end,
      updated_at = excluded.updated_at
    where f.failures < ${CODE_BUDGET} or f.updated_at <= excluded.updated_at - make_interval(secs => ${CODE_WINDOW_S})
    returning f.failures
  )
  select (select failures from claim) as claimed, (select updated_at from signin_failures where email = $1) as last_at`

export function createCodeBudget (deps: { database: Database, now?: () => number }) {
  const now = deps.now ?? Date.now
  return {
    /** claims a code attempt of `userId`: 0 when it may go on, else the seconds until it may */
    async claim (userId: string): Promise<number> {
      const at = now()
      const [row] = await deps.database.query<{ claimed: number | null, last_at: Date | string | null }>(CLAIM, [keyOf(userId), new Date(at).toISOString()])
      if (row?.claimed != null) return 0
      const last = row?.last_at ? new Date(row.last_at).getTime() : at
      return Math.max(1, Math.ceil((last + CODE_WINDOW_S * 1000 - at) / 1000))
    },

    /** a right code: its claim is given back (the wrong ones stay counted) */
    async release (userId: string): Promise<void> {
      await deps.database.query('update signin_failures set failures = greatest(failures - 1, 0) where email = $1', [keyOf(userId)])
    }
  }
}

export type CodeBudget = ReturnType<typeof createCodeBudget>
