// ADMIN_EMAILS: the addresses that become `admin` once confirmed, so that a new deployment has its
// first admin without a command (docs/operations.md, Support). Compared as the service stores
// addresses: trimmed and lowercase.
import { list } from './well-formed.ts'

const ADDRESS = /^[^\s@,]+@[^\s@,]+$/

/** the addresses of ADMIN_EMAILS, lowercase; a line in `problems` for an entry that is not one */
export function adminEmailsOf (value: string, problems: string[]): string[] {
  const emails = list(value).map((e) => e.toLowerCase())
  if (emails.some((e) => !ADDRESS.test(e))) problems.push('ADMIN_EMAILS must be a comma list of e-mail addresses')
  return emails
}
