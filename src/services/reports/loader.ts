// Loads what the engine needs for one report from the profile tables: each profile with its
// follows, its friends with theirs, every account they follow with its interests, and the taxonomy.
// A handful of set-based queries, whatever the report's size.
import type { Database } from '../../db/client.ts'
import type { AccountDef, Dataset, FollowDef, ProfileDef, ReportInput, Source } from '../../engine/index.ts'

interface ProfileRow { id: string, source: string, username: string, fullname: string, image: string | null, link: string }

export async function loadReportInput (database: Database, profileIds: string[], month: string): Promise<ReportInput> {
  const q = database.query
  const subjects = await q<ProfileRow>('select id, source, username, fullname, image, link from profiles where id = any($1::text[])', [profileIds])
  const friendRows = await q<ProfileRow & { of: string }>(
    `select f.a as of, p.id, p.source, p.username, p.fullname, p.image, p.link
       from friendships f join profiles p on p.id = f.b where f.a = any($1::text[])
     union all
     select f.b as of, p.id, p.source, p.username, p.fullname, p.image, p.link
       from friendships f join profiles p on p.id = f.a where f.b = any($1::text[])`, [profileIds])
  const everyone = [...new Set([...profileIds, ...friendRows.map((r) => r.id)])]

  const followRows = await q<{ profile_id: string, account_id: string, since: string, until: string | null }>(
    'select profile_id, account_id, since::text as since, until::text as until from follows where profile_id = any($1::text[])', [everyone])
  const accountRows = await q<{ id: string, username: string, fullname: string, image: string | null, interests: string[] | null }>(
    `select a.id, a.username, a.fullname, a.image,
            (select array_agg(ai.interest_id order by ai.interest_id) from account_interests ai where ai.account_id = a.id) as interests
       from accounts a
      where a.id in (select distinct account_id from follows where profile_id = any($1::text[]))`, [everyone])
  const [categories, redFlags, interests] = await Promise.all([
    q<{ id: string, name: string, synthetic: boolean }>('select id, name, synthetic from categories'),
    q<{ id: string, label: string }>('select id, label from red_flags'),
    q<{ id: string, name: string, category_id: string, red_flag_id: string | null }>('select id, name, category_id, red_flag_id from interests')
  ])

  const followsOf = new Map<string, FollowDef[]>()
  for (const f of followRows) {
    let list = followsOf.get(f.profile_id)
    if (!list) followsOf.set(f.profile_id, list = [])
    list.push({ accountId: f.account_id, since: f.since, until: f.until })
  }
  const toProfile = (r: ProfileRow): ProfileDef => ({
    id: r.id, source: r.source as Source, username: r.username, fullname: r.fullname, image: r.image, link: r.link,
    follows: followsOf.get(r.id) ?? []
  })
  const accounts: AccountDef[] = accountRows.map((a) => ({
    id: a.id, username: a.username, fullname: a.fullname, image: a.image, interests: a.interests ?? []
  }))
  const dataset: Dataset = {
    categories,
    redFlags,
    interests: interests.map((i) => ({ id: i.id, name: i.name, categoryId: i.category_id, redFlagId: i.red_flag_id })),
    accounts
  }
  const byId = new Map(subjects.map((s) => [s.id, s]))
  return {
    dataset,
    month,
    profiles: profileIds.filter((id) => byId.has(id)).map((id) => ({
      profile: toProfile(byId.get(id)!),
      friends: friendRows.filter((f) => f.of === id).map(toProfile)
    }))
  }
}
