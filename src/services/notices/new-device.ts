// Sign-ins from a device new to the account (docs/security.md, Notices; docs/decisions/accounts.md,
// Security notices). A device is its name as the sessions card shows it ("Chrome on Linux") and the
// network of its address (an IPv4 /24, an IPv6 /48: src/services/sessions/ip-prefix.ts); every
// completed sign-in records it in known_devices or moves its last_seen_at on. One not seen on the
// account for 90 days mails the holder a notice, unless they turned that notice off. An account
// with no known device at all (its first sign-in, or its first since this check came) records one
// and mails nothing.
import type { Database } from '../../db/client.ts'
import { deviceName } from '../sessions/device-name.ts'
import { ipPrefix } from '../sessions/ip-prefix.ts'
import type { Notices } from './index.ts'
import { NOTICE } from './what.ts'

/** how long a device stays known without a sign-in from it */
export const KNOWN_DEVICE_DAYS = 90
const DAY_MS = 24 * 3600 * 1000

// The account's devices are read before the upsert (a data-modifying CTE sees the table as it was),
// so one round trip both answers "was it known?" and records it.
const SIGNED_IN = `with prior as (
    select count(*) > 0 as any_known,
      coalesce(bool_or(device = $2 and ip_prefix = $3 and last_seen_at > $5::timestamptz), false) as known
    from known_devices where user_id = $1
  ), seen as (
    insert into known_devices (user_id, device, ip_prefix, last_seen_at) values ($1, $2, $3, $4::timestamptz)
    on conflict (user_id, device, ip_prefix) do update set last_seen_at = greatest(known_devices.last_seen_at, excluded.last_seen_at)
  )
  select p.any_known, p.known, u.new_device_notices as wanted from prior p join users u on u.id = $1`

/** the request that signed in: its address and User-Agent */
export interface SigninRequest { ip: string, userAgent?: string }

export interface NewDeviceDeps {
  database: Database
  notices: Pick<Notices, 'send'>
  now?: () => number
}

export function createNewDeviceNotices (deps: NewDeviceDeps) {
  const now = deps.now ?? Date.now
  return {
    /**
     * A sign-in of `userId` completed (its second factor proved, where it has one): record the
     * device, and mail the notice when it is new to the account. True when a notice was sent.
     */
    async signedIn (userId: string, meta: SigninRequest): Promise<boolean> {
      const at = now()
      // an unnamed User-Agent (a program's) is one device: '' (the column is part of the key)
      const device = deviceName(meta.userAgent ?? null) ?? ''
      const network = ipPrefix(meta.ip) ?? meta.ip ?? ''
      const [row] = await deps.database.query<{ any_known: boolean, known: boolean, wanted: boolean }>(SIGNED_IN,
        [userId, device, network, new Date(at).toISOString(), new Date(at - KNOWN_DEVICE_DAYS * DAY_MS).toISOString()])
      if (!row || !row.any_known || row.known || !row.wanted) return false
      await deps.notices.send(userId, { what: NOTICE.newDevice, ip: meta.ip, userAgent: meta.userAgent })
      return true
    },

    /** whether the account wants the new-device notice; null for an unknown account */
    async wanted (userId: string): Promise<boolean | null> {
      const [row] = await deps.database.query<{ on: boolean }>('select new_device_notices as on from users where id = $1', [userId])
      return row ? row.on : null
    },

    /** turn the notice on or off; false for an unknown account */
    async setWanted (userId: string, on: boolean): Promise<boolean> {
      const rows = await deps.database.query<{ id: string }>('update users set new_device_notices = $2 where id = $1 returning id', [userId, on])
      return rows.length > 0
    }
  }
}

export type NewDeviceNotices = ReturnType<typeof createNewDeviceNotices>
