// /report (docs/architecture.md, HTTP contract): every route needs a Bearer token; a report belongs to one user
// (401 without a token, 403 on another user's report, 404 for an unknown id).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { BODY_ERRORS, errorResponses, PageQuerySchema, PARAM_ERRORS } from '../../../schemas/common.ts'
import {
  CreatedReportSchema, CreateReportBodySchema, DiffsQuerySchema, DiffsResponseSchema, FriendDetailSchema, FriendsQuerySchema,
  FriendsSchema, GenerateReportResponseSchema, InterestsQuerySchema, InterestsResponseSchema, ReportListSchema, ReportSchema,
  SourceQuerySchema, type Category, type DiffItem
} from '../../../schemas/report.ts'
import { friendsPage, type FriendLists } from '../../engine/index.ts'

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
const FriendParams = Type.Object({ id: Type.String({ maxLength: 64 }), friendId: Type.String({ minLength: 1, maxLength: 100 }) })
const security = [{ bearer: [] }]
const tags = ['reports']

const reportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { reports } = app.services
  app.addHook('onRequest', app.authenticate)

  app.post('/', {
    schema: {
      operationId: 'createReport',
      tags, security, summary: 'Create a draft report on 1 to 5 profiles (one per source)',
      body: CreateReportBodySchema,
      response: { 201: CreatedReportSchema, ...errorResponses(400, 401, 403, 404, 413, 415, 429, 500, 503) }
    },
    // an Idempotency-Key makes a retry answer the first draft again (src/plugins/idempotency.ts)
    config: { apiKeyScope: 'reports:write', idempotent: true }
  }, async (request, reply) => {
    const created = await reports.create(request.user.id, request.body.profiles)
    // a 201 names what it made (RFC 9110 15.3.2): the report's own path
    return reply.code(201).header('location', `${app.prefix}/${created.id}`).send(created)
  })

  app.get('/', {
    config: { apiKeyScope: 'reports:read' },
    schema: {
      operationId: 'listReports',
      tags, security, summary: 'The user\'s reports, newest first',
      querystring: PageQuerySchema,
      response: { 200: ReportListSchema, ...errorResponses(400, 401, 403, 429, 500, 503) }
    }
  }, async (request) => reports.list(request.user.id, request.query.offset, request.query.limit))

  app.post('/:id/generate', {
    schema: {
      operationId: 'generateReport',
      tags, security, summary: 'Queue generation (takes one report credit unless subscribed)',
      params: IdParams,
      response: { 202: GenerateReportResponseSchema, ...errorResponses(...BODY_ERRORS, ...PARAM_ERRORS, 401, 402, 403, 404, 429, 500, 503) }
    },
    config: { apiKeyScope: 'reports:write', idempotent: true }
  }, async (request, reply) => reply.code(202).send(await reports.generate(request.user.id, request.params.id)))

  app.get('/:id', {
    config: { apiKeyScope: 'reports:read' },
    schema: {
      operationId: 'getReport',
      tags, security, summary: 'The report: its ReportItems once ready (ETag, 304 on If-None-Match)',
      params: IdParams,
      response: { 200: ReportSchema, 304: Type.Null(), ...errorResponses(...PARAM_ERRORS, 401, 403, 404, 429, 500, 503) }
    }
  }, async (request, reply) => {
    const r = await reports.read(request.user.id, request.params.id)
    if (!r.ready) return r.report
    reply.header('etag', r.etag).header('cache-control', 'private, no-cache')
    if (request.headers['if-none-match'] === r.etag) return reply.code(304).send(null)
    // stored once at generation: the bytes go out as they are
    return reply.type('application/json; charset=utf-8').send(r.body as never)
  })

  app.get('/:id/interests', {
    config: { apiKeyScope: 'reports:read' },
    schema: {
      operationId: 'getReportInterests',
      tags, security, summary: 'The full interest category tree of the report\'s profile on a source; offset and limit page its categories',
      params: IdParams,
      querystring: InterestsQuerySchema,
      response: { 200: InterestsResponseSchema, ...errorResponses(...PARAM_ERRORS, 400, 401, 403, 404, 429, 500, 503) }
    }
  }, async (request) => {
    const { offset = 0, limit } = request.query
    const d = await reports.detail<Category[]>(request.user.id, request.params.id, request.query.source, 'tree')
    const items = d.part.slice(offset, limit === undefined ? undefined : offset + limit)
    return { source: d.source, items, total: d.part.length, hasMore: offset + items.length < d.part.length }
  })

  app.get('/:id/friends', {
    config: { apiKeyScope: 'reports:read' },
    schema: {
      operationId: 'listReportFriends',
      tags, security, summary: 'Friends with common interests or red flags, paged',
      params: IdParams,
      querystring: FriendsQuerySchema,
      response: { 200: FriendsSchema, ...errorResponses(...PARAM_ERRORS, 400, 401, 403, 404, 429, 500, 503) }
    }
  }, async (request) => {
    const q = request.query
    const d = await reports.detail<FriendLists>(request.user.id, request.params.id, q.source, 'friends')
    return friendsPage(d.part, { sortByRedFlags: q.sortByRedFlags, offset: q.offset ?? 0, limit: q.limit ?? 20 }, d.sourceProfile, d.availableSources)
  })

  app.get('/:id/friends/:friendId', {
    config: { apiKeyScope: 'reports:read' },
    schema: {
      operationId: 'getReportFriend',
      tags, security, summary: 'One friend: the interests it shares with the report\'s profile and its red flags',
      params: FriendParams,
      querystring: SourceQuerySchema,
      response: { 200: FriendDetailSchema, ...errorResponses(...PARAM_ERRORS, 400, 401, 403, 404, 429, 500, 503) }
    }
  }, async (request) => reports.friendDetail(request.user.id, request.params.id, request.query.source, request.params.friendId))

  app.get('/:id/diffs', {
    config: { apiKeyScope: 'reports:read' },
    schema: {
      operationId: 'listReportDiffs',
      tags, security, summary: 'Month-by-month interest changes, newest first, paged',
      params: IdParams,
      querystring: DiffsQuerySchema,
      response: { 200: DiffsResponseSchema, ...errorResponses(...PARAM_ERRORS, 400, 401, 403, 404, 429, 500, 503) }
    }
  }, async (request) => {
    const offset = request.query.offset ?? 0
    const limit = request.query.limit ?? 20
    const d = await reports.detail<DiffItem[]>(request.user.id, request.params.id, request.query.source, 'diffs')
    const items = d.part.slice(offset, offset + limit)
    return { items, total: d.part.length, hasMore: offset + items.length < d.part.length }
  })

  app.delete('/:id', {
    config: { apiKeyScope: 'reports:write' },
    schema: {
      operationId: 'deleteReport',
      tags, security, summary: 'Delete the report and its events',
      params: IdParams,
      response: { 204: Type.Null(), ...errorResponses(...BODY_ERRORS, ...PARAM_ERRORS, 401, 403, 404, 429, 500, 503) }
    }
  }, async (request, reply) => {
    await reports.remove(request.user.id, request.params.id)
    return reply.code(204).send(null)
  })
}

export default reportRoutes
