// Cutting an account's programs off (docs/decisions/accounts.md, Recovery cuts off an intruder):
// every API key of the account revoked and every webhook endpoint disabled, in the transaction of
// the change that calls for it (a reset by recovery link, an operator's removal of the second
// factors, sign-out everywhere with `apiKeys: true`, a staff disable). Whoever once held the
// password may have made them; the holder makes new ones. A key's revocation reaches every instance
// as DELETE /auth/api-keys/{id}'s does: api_keys' trigger records it and NOTIFYs (drizzle/0009),
// and this instance marks it at once (settle). A disabled endpoint is sent nothing more: the
// delivery worker reads disabled_at with every claim (src/services/webhooks/delivery.ts) and no new
// event is written for it.
import { and, eq, isNull, sql } from 'drizzle-orm'
import type { Database, Db } from '../../db/client.ts'
import { apiKeys, webhookEndpoints } from '../../db/schema/index.ts'
import { AUDIT, type AuditService, type RequestMeta } from './audit.ts'

/** what a cut-off revoked and disabled */
export interface CutOff {
  /** the ids of the API keys it revoked */
  apiKeys: string[]
  /** the webhook endpoints it disabled */
  webhooks: Array<{ id: string, url: string }>
}

export const NOTHING_CUT: CutOff = { apiKeys: [], webhooks: [] }

export interface AccessCutOffDeps {
  database: Database
  audit: Pick<AuditService, 'record' | 'recordIn'>
  /** mark revoked keys ended in this instance at once (the trigger's NOTIFY tells the others) */
  announceEnded: (ids: string[]) => void | Promise<void>
}

/** revoke every live API key of `userId` and disable every enabled webhook endpoint of it, in `tx` */
export async function cutOffAccess (tx: Db, userId: string): Promise<CutOff> {
  const keys = await tx.update(apiKeys).set({ revokedAt: sql`now()` })
    .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id })
  const endpoints = await tx.update(webhookEndpoints).set({ disabledAt: sql`now()` })
    .where(and(eq(webhookEndpoints.userId, userId), isNull(webhookEndpoints.disabledAt)))
    .returning({ id: webhookEndpoints.id, url: webhookEndpoints.url })
  return { apiKeys: keys.map((k) => k.id), webhooks: endpoints }
}

/** a line for a person: what a cut-off revoked and disabled */
export function describeCutOff (cut: CutOff): string {
  const keys = cut.apiKeys.length === 1 ? '1 API key was revoked' : `${cut.apiKeys.length} API keys were revoked`
  if (!cut.webhooks.length) return `${keys}; no webhook endpoint was enabled.`
  return `${keys}, and ${cut.webhooks.length === 1 ? 'this webhook endpoint was' : 'these webhook endpoints were'} disabled: ` +
    `${cut.webhooks.map((w) => w.url).join(', ')}.`
}

export function createAccessCutOff (deps: AccessCutOffDeps) {
  const db = deps.database.db

  /** the audit trail's rows of a cut-off: one per key revoked, one per endpoint disabled */
  const kinds = (cut: CutOff) => [...cut.apiKeys.map(() => AUDIT.apiKeyRevoke), ...cut.webhooks.map(() => AUDIT.webhookDisable)]

  /** after the cut-off's transaction committed: this instance refuses the keys at once, and the trail records each */
  async function settle (userId: string, cut: CutOff, meta: RequestMeta): Promise<void> {
    if (cut.apiKeys.length) await deps.announceEnded(cut.apiKeys)
    for (const kind of kinds(cut)) await deps.audit.record(kind, userId, meta)
  }

  return {
    within: cutOffAccess,
    settle,

    /** an operator's cut-off rows (no request: no IP address or User-Agent), in the transaction `tx` that cut */
    async recordIn (tx: Db, userId: string, cut: CutOff): Promise<void> {
      for (const kind of kinds(cut)) await deps.audit.recordIn(tx, kind, userId)
    },

    /** cut `userId` off in a transaction of its own, settled (DELETE /auth/sessions with `apiKeys: true`, a staff disable) */
    async now (userId: string, meta: RequestMeta): Promise<CutOff> {
      const cut = await db.transaction((tx) => cutOffAccess(tx, userId))
      await settle(userId, cut, meta)
      return cut
    }
  }
}

export type AccessCutOff = ReturnType<typeof createAccessCutOff>
