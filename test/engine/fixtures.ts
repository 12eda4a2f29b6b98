// Small builders for hand-written engine fixtures: ids double as names unless given, so the
// arithmetic in the tests reads without a lookup table.
import type {
  AccountDef, CategoryDef, Dataset, FollowDef, InterestDef, ProfileDef, RedFlagDef, Source
} from '../../src/engine/index.ts'

export const cat = (id: string, name = id, synthetic = false): CategoryDef => ({ id, name, synthetic })
export const flag = (id: string, label = id): RedFlagDef => ({ id, label })
export const interest = (id: string, categoryId: string, redFlagId: string | null = null, name = id): InterestDef =>
  ({ id, name, categoryId, redFlagId })
export const account = (id: string, interests: string[], image: string | null = `https://img/${id}`): AccountDef =>
  ({ id, username: `${id}_u`, fullname: `${id} Full`, image, interests })
export const follow = (accountId: string, since: string, until: string | null = null): FollowDef =>
  ({ accountId, since, until })

export function profile (id: string, follows: FollowDef[], extra: Partial<ProfileDef> = {}): ProfileDef {
  return {
    id,
    source: 'ig' as Source,
    username: `${id}_u`,
    fullname: `${id} Full`,
    image: `https://img/${id}`,
    link: `https://net/${id}`,
    follows,
    ...extra
  }
}

export function dataset (parts: Partial<Dataset>): Dataset {
  return { categories: [], redFlags: [], interests: [], accounts: [], ...parts }
}

// Doubles from different but equivalent formulas agree to the last bit or two, not exactly.
export function near (actual: number, expected: number): boolean {
  return Math.abs(actual - expected) <= 1e-12
}
