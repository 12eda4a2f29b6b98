// Account changes: one emitter that every writer of what GET /auth/info shows tells, and that every
// in-memory view of an account listens to. Writers in this process tell it before they answer, so a
// client reads its own writes at once; changes made by other instances and processes arrive through
// the users table's trigger (ACCOUNT_CHANGED_CHANNEL, src/plugins/account-changes.ts).

export interface AccountChangeListener {
  /** one account changed: drop what is kept of it */
  changed: (userId: string) => void
  /** changes may have been missed (the LISTEN connection reconnected): drop everything kept */
  missed: () => void
}

export interface AccountChanges {
  changed: (userId: string) => void
  missed: () => void
  on: (listener: AccountChangeListener) => void
}

export function createAccountChanges (): AccountChanges {
  const listeners: AccountChangeListener[] = []
  return {
    changed (userId) { for (const l of listeners) l.changed(userId) },
    missed () { for (const l of listeners) l.missed() },
    on (listener) { listeners.push(listener) }
  }
}
