// GET /report/{id}/export and /report/{id}/export.csv (Bearer): a ready report as a download, under
// the rules of GET /report/{id} (401 without a token, 403 on another user's report, 404 for an
// unknown id) and of its detail routes (404 while it is not ready). JSON (/export): the report as
// GET /report/{id} gives it, plus `details`, everything the report stores per profile (full trees,
// both friend lists, every diff month). CSV (/export.csv, and /export?format=csv as the contract has
// always answered it): one row per (source, interest), or with part=friends one row per (source,
// friend) (src/services/reports/csv.ts). /export.csv answers one media type, so a generated client
// knows how to read its 200. Formats and parts are in docs/decisions/accounts.md, Export.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { Type } from '@sinclair/typebox'
import { errorResponses, PARAM_ERRORS } from '../../../schemas/common.ts'
import { ExportCsvQuerySchema, ExportQuerySchema, ReportExportSchema, type ExportPart } from '../../../schemas/export.ts'
import { BadRequest } from '../../errors.ts'
import { exportDetails, exportJson, friendsCsv, interestsCsv } from '../../services/reports/csv.ts'

const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
const CsvSchema = Type.String({ description: 'RFC 4180, UTF-8, a header row, CRLF line ends' })

const reportExportRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { reports } = app.services
  app.addHook('onRequest', app.authenticate)

  /** the download's headers; the id passed the ownership check, so it is a UUID: nothing to escape in the name */
  const asAttachment = (reply: FastifyReply, name: string) =>
    reply.header('content-disposition', `attachment; filename="${name}"`).header('cache-control', 'private, no-store')

  async function sendCsv (reply: FastifyReply, userId: string, id: string, part: ExportPart | undefined) {
    const details = exportDetails((await reports.exportData(userId, id)).details)
    asAttachment(reply, part === 'friends' ? `report-${id}-friends.csv` : `report-${id}.csv`)
    return reply.type('text/csv; charset=utf-8; header=present').send(part === 'friends' ? friendsCsv(details) : interestsCsv(details))
  }

  app.get('/:id/export', {
    config: { apiKeyScope: 'reports:read' },
    schema: {
      operationId: 'exportReport',
      tags: ['reports'],
      security: [{ bearer: [] }],
      summary: 'A ready report as a file: JSON (the report and all it stores), or with format=csv the CSV that GET /report/{id}/export.csv answers',
      description: 'A generated client reads the CSV through exportReportCsv, whose answer is text/csv alone; format=csv stays for links and scripts made for this route.',
      params: IdParams,
      querystring: ExportQuerySchema,
      response: {
        200: {
          description: 'the report as an attachment (Content-Disposition: attachment; filename="report-<id>.json", or as /export.csv names the CSV)',
          content: {
            'application/json': { schema: ReportExportSchema },
            'text/csv': { schema: CsvSchema }
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
    if (format === 'csv') return await sendCsv(reply, request.user.id, id, part)
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
          content: { 'text/csv': { schema: CsvSchema } }
        },
        ...errorResponses(...PARAM_ERRORS, 400, 401, 403, 404, 429, 500, 503)
      }
    }
  }, async (request, reply) => await sendCsv(reply, request.user.id, request.params.id, request.query.part))
}

export default reportExportRoutes
