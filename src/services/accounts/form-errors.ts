// On form endpoints (docs/architecture.md, HTTP contract) a schema failure is a FormResult naming the first bad field.
// email, password and promocode name themselves; any other field maps to email. acquisition_code is
// a machine-set marker, not a form field: its failure stays an HTTP 400 (return null).
import type { FieldError } from '../../../schemas/common.ts'

interface ValidationIssue {
  keyword: string
  instancePath: string
  params: Record<string, unknown>
  message?: string
}

export const PROMO_MESSAGE = 'Promo code is invalid, expired or used up to the limit'
export const CAPTCHA_MESSAGE = 'CAPTCHA check failed, please try again'

export function fieldErrorFor (issues: ValidationIssue[], context?: string): FieldError | null {
  const v = issues[0]
  if (!v) return null
  if (context && context !== 'body') return { field: 'email', message: 'Invalid request' }
  const name = v.keyword === 'required'
    ? String(v.params.missingProperty ?? '')
    : v.instancePath.split('/')[1] ?? ''
  if (name === 'acquisition_code') return null
  // a password change's two passwords are the one `password` field of the form
  if (name === 'password' || name === 'currentPassword' || name === 'newPassword') {
    if (name === 'currentPassword') return { field: 'password', message: 'Enter your current password' }
    if (v.keyword === 'minLength') return { field: 'password', message: 'Password must be at least 8 characters' }
    if (v.keyword === 'maxLength') return { field: 'password', message: 'Password must be at most 256 characters' }
    return { field: 'password', message: 'Enter a password' }
  }
  if (name === 'promocode') return { field: 'promocode', message: PROMO_MESSAGE }
  // sign-up's CAPTCHA token (a string) missing or empty: the user is told what sign-up says for a failed CAPTCHA
  if (name === 'token' && (v.keyword === 'required' || v.keyword === 'minLength')) return { field: 'email', message: CAPTCHA_MESSAGE }
  if (name === 'email') return { field: 'email', message: 'Enter a valid e-mail address' }
  if (name === '' && v.keyword === 'type') return { field: 'email', message: 'Enter a valid e-mail address' }
  return { field: 'email', message: `Invalid ${name || 'request'}` }
}
