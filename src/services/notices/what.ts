// The first line of each security notice the holder's own actions send (docs/security.md, Notices).
// One table, so that the mails and the docs name the same events; staff actions write their own.
// Short: each is also the mail's subject after "Security notice: ", one header line.
export const NOTICE = {
  newDevice: 'Your account was signed in to from a new device',
  passwordChanged: 'Your password was changed',
  passwordReset: 'Your password was reset with a recovery link',
  totpAdded: 'An authenticator app was added to your account',
  totpRemoved: 'Your authenticator app was removed',
  passkeyAdded: 'A passkey was added to your account',
  passkeyRemoved: 'A passkey was removed from your account',
  apiKeyCreated: 'An API key was created for your account',
  webhookAdded: 'A webhook endpoint was added to your account',
  googleLinked: 'Your account was linked to a Google account',
  googleUnlinked: 'Google sign-in was unlinked from your account'
} as const
