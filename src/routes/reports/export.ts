// GET /report/{id}/export (Bearer): a ready report as a download, under the rules of GET /report/{id}
// (401 without a token, 403 on another user's report, 404 for an unknown id) and of its detail
// routes (404 while it is not ready). JSON: the report as GET /report/{id} gives it, plus `details`,
// everything the report stores per profile (full trees, both friend lists, every diff month). CSV:
// one row per (source, interest), or with part=friends one row per (source, friend)
// (src/services/reports/csv.ts). Formats and parts are in docs/decisions.md.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errorResponses, PARAM_ERRORS } from '../../../schemas/common.ts'
import { ExportQuerySchema, ReportExportSchema } from '../../../schemas/export.ts'
import { BadRequest } from '../../errors.ts'
import { exportDetails, exportJson, friendsCsv, interestsCsv } from '../../services/reports/csv.ts'

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })

const reportExportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { reports } = app.services
  app.addHook('onRequest', app.authenticate)

  app.get('/:id/export', {
    config: { apiKeyScope: 'reports:read' },
    schema: {
      operationId: 'exportReport',
      tags: ['reports'],
      security: [{ bearer: [] }],
      summary: 'A ready report as a file: JSON (the report and all it stores) or CSV (interests, or friends with part=friends)',
      params: IdParams,
      querystring: ExportQuerySchema,
      response: {
        200: {
          description: 'the report as an attachment (Content-Disposition: attachment; filename="report-<id>.<ext>")',
          content: {
            'application/json': { schema: ReportExportSchema },
            'text/csv': { schema: Type.String({ description: 'RFC 4180, a header row, CRLF line ends' }) }
          }
        },
        ...errorResponses(...PARAM_ERRORS, 400, 401, 403, 404, 429, 500, 503)
      }
    }
  }, async (request, reply) => {
    const format = request.query.format ?? 'json'
    const part = request.query.part
    if (format === 'json' && part !== undefined) throw new BadRequest('querystring part: only with format=csv')
    const id = request.params.id
    const stored = await reports.exportData(request.user.id, id)
    const details = exportDetails(stored.details)
    const name = format === 'json' ? `report-${id}.json` : part === 'friends' ? `report-${id}-friends.csv` : `report-${id}.csv`
    // the id passed the ownership check, so it is a UUID: nothing to escape in the file name
    reply.header('content-disposition', `attachment; filename="${name}"`).header('cache-control', 'private, no-store')
    if (format === 'json') return reply.type('application/json; charset=utf-8').send(exportJson(stored.body, details))
    return reply.type('text/csv; charset=utf-8; header=present')
      .send(part === 'friends' ? friendsCsv(details) : interestsCsv(details))
  })
}

export default reportExportRoutes
