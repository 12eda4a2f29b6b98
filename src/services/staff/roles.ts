// Staff roles (docs/operations.md, Support): `user`, `support` or `admin` on the user row. Only the
// /admin routes read them (src/plugins/staff.ts), so a person's and a program's hot paths pay nothing.
import type { Database } from '../../db/client.ts'

export const ROLES = ['user', 'support', 'admin'] as const
export type Role = typeof ROLES[number]

/** what a role may do at /admin: support reads, disables, enables, ends sessions and sends links; admin the rest */
export const RANK: Record<Role, number> = { user: 0, support: 1, admin: 2 }

export function createRoleReader (deps: { database: Database }) {
  return {
    /** the role of a live, enabled account; null for an unknown or disabled one */
    async roleOf (userId: string): Promise<Role | null> {
      const [row] = await deps.database.query<{ role: Role }>('select role from users where id = $1 and disabled_at is null', [userId])
      return row?.role ?? null
    }
  }
}

export type RoleReader = ReturnType<typeof createRoleReader>
