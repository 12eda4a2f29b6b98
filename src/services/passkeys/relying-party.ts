// Who the passkeys belong to (docs/decisions/accounts.md, Passkeys): the relying party is
// PUBLIC_URL's host name, and the one origin a ceremony may come from is PUBLIC_URL's origin. The
// host name without its port is what WebAuthn calls the RP id; a browser refuses any other for this
// page, and an authenticator keeps a passkey for that id only, so a passkey made here cannot be
// used elsewhere.
export interface RelyingParty {
  /** the RP id: PUBLIC_URL's host name */
  id: string
  /** shown by the authenticator beside the account's name */
  name: string
  /** the origin clientDataJSON must name */
  origin: string
}

export const RP_NAME = 'Profile Interest Reports'

export function relyingPartyOf (publicUrl: string): RelyingParty {
  const url = new URL(publicUrl)
  return { id: url.hostname, name: RP_NAME, origin: url.origin }
}
