// Helpers of the staff tests (not a test file itself): a staff member as the /admin routes need one,
// signed in at level 2 (an authenticator app set up and proved) with a fresh proof.
import { signedInUser, type SignedInUser } from '../helper.ts'
import { bearer, enrolTotp, type Enrolled, type MfaApp } from '../mfa/support.ts'

export interface StaffMember extends SignedInUser {
  id: string
  role: 'support' | 'admin'
  totp: Enrolled
}

/** the id of the account with this address */
export async function userIdOf (m: MfaApp, email: string): Promise<string> {
  const [row] = await m.app.database.query<{ id: string }>('select id from users where email = $1', [email.toLowerCase()])
  if (!row) throw new Error(`no account ${email}`)
  return row.id
}

/**
 * A new account given `role`, with an authenticator app set up: its token is at level 2 and its
 * session proved its owner just now. The role is set in the database, as the first admin's would be
 * by `npm run admins`; the CLI and ADMIN_EMAILS have tests of their own.
 */
export async function staffMember (m: MfaApp, role: 'support' | 'admin'): Promise<StaffMember> {
  const user = await signedInUser(m.app)
  const id = await userIdOf(m, user.email)
  await m.app.database.query('update users set role = $1 where id = $2', [role, id])
  const totp = await enrolTotp(m, user)
  return { ...user, id, role, totp, token: totp.token, auth: bearer(totp.token) }
}
