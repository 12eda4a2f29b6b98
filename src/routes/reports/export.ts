// GET /report/{id}/export and /report/{id}/export.csv (Bearer): a ready report as a download, under
// the rules of GET /report/{id} (401 without a token, 403 on another user's report, 404 for an
// unknown id) and of its detail routes (404 while it is not ready). JSON (/export): the report as
// GET /report/{id} gives it, plus `details`, everything the report stores per profile (full trees,
// both friend lists, every diff month). CSV (/export.csv): one row per (source, interest), or with
// part=friends one row per (source, friend) (src/services/reports/csv.ts). Each operation answers
// one media type, so a generated client knows how to read its 200; `/export?format=csv` redirects
// (308) to /export.csv. Formats and parts are in docs/decisions.md (Export).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { Type } from '@sinclair/typebox'
import { errorResponses, PARAM_ERRORS } from '../../../schemas/common.ts'
import { ExportCsvQuerySchema, ExportQuerySchema, ReportExportSchema } from '../../../schemas/export.ts'
import { BadRequest } from '../../errors.ts'
import { exportDetails, exportJson, friendsCsv, interestsCsv } from '../../services/reports/csv.ts'

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })

const reportExportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { reports } = app.services
  app.addHook('onRequest', app.authenticate)

  /** the download's headers; the id passed the ownership check, so it is a UUID: nothing to escape in the name */
  const asAttachment = (reply: FastifyReply, name: string) =>
    reply.header('content-disposition', `attachment; filename="${name}"`).header('cache-control', 'private, no-store')

  app.get('/:id/export', {
    config: { apiKeyScope: 'reports:read' },
    schema: {
      operationId: 'exportReport',
      tags: ['reports'],
      security: [{ bearer: [] }],
      summary: 'A ready report as a JSON file: the report and all it stores (the CSV is GET /report/{id}/export.csv)',
      params: IdParams,
      querystring: ExportQuerySchema,
      response: {
        200: {
          description: 'the report as an attachment (Content-Disposition: attachment; filename="report-<id>.json")',
          content: { 'application/json': { schema: ReportExportSchema } }
        },
        308: {
          type: 'null',
          description: 'format=csv: the CSV is at GET /report/{id}/export.csv (with the same part)',
          headers: { Location: { type: 'string', description: '/api/v1/report/{id}/export.csv, with ?part= when one was asked' } }
        },
        ...errorResponses(...PARAM_ERRORS, 400, 401, 403, 404, 429, 500, 503)
      }
    }
  }, async (request, reply) => {
    const format = request.query.format ?? 'json'
    const part = request.query.part
    if (format === 'json' && part !== undefined) throw new BadRequest('querystring part: only with format=csv')
    if (format === 'csv') {
      // the path as requested, with .csv: /api/v1/report/<id>/export.csv
      const path = request.url.split('?')[0]
      return reply.redirect(`${path}.csv${part === undefined ? '' : `?part=${part}`}`, 308)
    }
    const id = request.params.id
    const stored = await reports.exportData(request.user.id, id)
    asAttachment(reply, `report-${id}.json`)
    return reply.type('application/json; charset=utf-8').send(exportJson(stored.body, exportDetails(stored.details)))
  })

  app.get('/:id/export.csv', {
    config: { apiKeyScope: 'reports:read' },
    schema: {
      operationId: 'exportReportCsv',
      tags: ['reports'],
      security: [{ bearer: [] }],
      summary: 'A ready report as a CSV file: its interests, or its friends with part=friends',
      params: IdParams,
      querystring: ExportCsvQuerySchema,
      response: {
        200: {
          description: 'the CSV as an attachment (Content-Disposition: attachment; filename="report-<id>.csv" or "report-<id>-friends.csv")',
          content: { 'text/csv': { schema: Type.String({ description: 'RFC 4180, UTF-8, a header row, CRLF line ends' }) } }
        },
        ...errorResponses(...PARAM_ERRORS, 400, 401, 403, 404, 429, 500, 503)
      }
    }
  }, async (request, reply) => {
    const part = request.query.part
    const id = request.params.id
    const details = exportDetails((await reports.exportData(request.user.id, id)).details)
    asAttachment(reply, part === 'friends' ? `report-${id}-friends.csv` : `report-${id}.csv`)
    return reply.type('text/csv; charset=utf-8; header=present').send(part === 'friends' ? friendsCsv(details) : interestsCsv(details))
  })
}

export default reportExportRoutes
