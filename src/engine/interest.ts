// The field sets shared by the tree, the previews, the diffs and the friends (docs/architecture.md, Report computation).
// `== null` on images: ingest lets a loader leave `image` out as well as null it.
import type { Follower, Interest, SourceProfile } from '../../schemas/report.ts'
import type { IndexedInterest } from './dataset.ts'
import type { AccountDef, ProfileDef, Source } from './types.ts'
import type { ScoredInterest } from './weights.ts'

// The display badge: a red flag's bucket wins; a synthetic category has no name worth showing.
export function badgeOf (def: IndexedInterest): string | undefined {
  if (def.redFlag !== null) return def.redFlag.label
  return def.category.synthetic ? undefined : def.category.name
}

// An Interest without `follows`/`redCatId`: the form used outside the category tree.
export function interestFields (s: ScoredInterest, source: Source, unactive: boolean): Interest {
  const category = badgeOf(s.def)
  return {
    id: s.id,
    name: s.name,
    share: s.share,
    relative: s.relative,
    unactive,
    ...(category === undefined ? {} : { category }),
    source
  }
}

export function followerOf (account: AccountDef): Follower {
  return {
    image: account.image ?? '',
    id: account.id,
    username: account.username,
    fullname: account.fullname,
    imageNotLoaded: account.image == null
  }
}

export function profileFields (p: ProfileDef): SourceProfile {
  return {
    image: p.image ?? '',
    id: p.id,
    username: p.username,
    fullname: p.fullname,
    imageNotLoaded: p.image == null,
    source: p.source,
    link: p.link
  }
}
