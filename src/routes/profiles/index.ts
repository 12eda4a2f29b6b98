// GET /profiles?q&source&offset&limit (Bearer): finds profiles to build a report on, for the dashboard's
// search box. Read-only over the imported profile data.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { and, asc, eq, or, sql, type SQL } from 'drizzle-orm'
import { errorResponses } from '../../../schemas/common.ts'
import { ProfileSearchQuerySchema, ProfileSearchResultSchema, type ProfileHit, type ProfileSearchQuery } from '../../../schemas/profiles.ts'
import type { Db } from '../../db/client.ts'
import { profiles } from '../../db/schema/index.ts'

// The user's text is matched literally: LIKE's own wildcards and its escape character are escaped.
export function likePattern (text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

/** a page of the matches, and whether a next one has any (the page's limit plus one are read) */
export async function searchProfiles (db: Db, query: ProfileSearchQuery): Promise<{ items: ProfileHit[], hasMore: boolean }> {
  const limit = query.limit ?? 10
  const text = query.q.trim()
  const pattern = likePattern(text)
  const lowered = text.toLowerCase()
  const username = sql`lower(${profiles.username})`
  const fullname = sql`lower(${profiles.fullname})`
  const where: SQL[] = [or(sql`${username} like ${pattern} escape '\\'`, sql`${fullname} like ${pattern} escape '\\'`)!]
  if (query.source) where.push(eq(profiles.source, query.source))
  const rows = await db.select({
    source: profiles.source, username: profiles.username, fullname: profiles.fullname, image: profiles.image, link: profiles.link
  }).from(profiles)
    .where(and(...where))
    .orderBy(
      sql`case when ${username} = ${lowered} or ${fullname} = ${lowered} then 0 else 1 end`,
      asc(username), asc(profiles.username), asc(profiles.source)
    )
    .limit(limit + 1)
    .offset(query.offset ?? 0)
  return { items: rows.slice(0, limit) as ProfileHit[], hasMore: rows.length > limit }
}

const profileRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', app.authenticate)

  app.get('/', {
    config: { apiKeyScope: 'profiles:read' },
    schema: {
      operationId: 'listProfiles',
      tags: ['profiles'],
      security: [{ bearer: [] }],
      summary: 'Search profiles by username or full name (the dashboard search box)',
      querystring: ProfileSearchQuerySchema,
      response: { 200: ProfileSearchResultSchema, ...errorResponses(400, 401, 403, 429, 500, 503) }
    }
  }, async (request) => await searchProfiles(app.db, request.query))
}

export default profileRoutes
