// 2. GET /report/{id} of a ready five-profile report against a bare Fastify route sending the same
// bytes. Target >= 0.80, and 304 on If-None-Match.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { compareHttp, httpResultParts } from '../lib/compare.ts'
import { request } from '../lib/processes.ts'
import { settings } from '../lib/settings.ts'
import { API, importOrFail, readyReport, signedInUser, writeDemoData } from '../lib/seed.ts'
import type { Scenario } from '../lib/scenario.ts'
import { anotherBare, anotherService, bareFor, databaseFor, serviceFor } from '../lib/setup.ts'

const TARGET = 0.8

export const reportRead: Scenario = {
  name: 'report',
  number: 2,
  title: 'GET /report/{id}, a ready report of 5 profiles',
  async run (ctx) {
    const db = await databaseFor(ctx, 'report')
    const demo = await writeDemoData(ctx.run.dir)
    const imported = await importOrFail(db.url, demo.file, join(ctx.run.dir, 'data'))
    console.log(`  seeded: ${demo.lines} demo lines imported in ${(imported.ms / 1000).toFixed(1)} s`)
    const app = await serviceFor(ctx, { name: 'service', databaseUrl: db.url, workers: 1 })
    const user = await signedInUser(app)
    const id = await readyReport(app, user, demo.reportProfiles)
    const auth = { authorization: `Bearer ${user.token}` }
    const url = `${app.url}${API}/report/${id}`
    const first = await request(url, { headers: auth })
    const etag = String(first.headers.etag ?? '')
    const conditional = await request(url, { headers: { ...auth, 'if-none-match': etag } })
    const notModified = etag !== '' && conditional.status === 304 && conditional.body === ''
    console.log(`  report ${id}: ${Buffer.byteLength(first.body)} bytes, ETag ${etag}; If-None-Match -> ${conditional.status}`)

    const bytesFile = join(ctx.run.dir, 'report-body.json')
    writeFileSync(bytesFile, first.body)
    const bare = await bareFor(ctx, { BENCH_BYTES_FILE: bytesFile })
    const same = (await request(`${bare.url}/bytes`)).body === first.body
    if (!same) throw new Error('the bare server does not send the report\'s bytes')

    const figs = await compareHttp(
      { label: 'bare Fastify, same bytes', url: `${bare.url}/bytes`, another: anotherBare(ctx, '/bytes', { BENCH_BYTES_FILE: bytesFile }) },
      { label: 'GET /report/{id}', url, headers: auth, another: anotherService(ctx, { name: 'service', databaseUrl: db.url, workers: 1 }, `${API}/report/${id}`) }
    )
    const parts = httpResultParts(figs, 'bare Fastify GET /bytes sending the same bytes', 'GET /api/v1/report/{id} (Bearer), ready report of 5 profiles')
    return {
      scenario: this.name,
      number: this.number,
      title: this.title,
      database: 'postgresql',
      ...parts,
      bytes: Buffer.byteLength(first.body),
      target: { metric: 'req/s candidate / baseline at -c 100 -p 1 and -p 10; 304 on If-None-Match', text: `>= ${TARGET.toFixed(2)}, and 304 on If-None-Match` },
      met: parts.ratio >= TARGET && notModified && parts.candidateErrors === 0,
      checks: { ratio: parts.ratio >= TARGET, notModifiedOnIfNoneMatch: notModified, noErrors: parts.candidateErrors === 0 },
      measuredAt: new Date().toISOString(),
      machine: ctx.machine(),
      settings: { duration: settings.duration, warmup: settings.warmup, rounds: settings.rounds, connections: settings.connections, processes: settings.processes, logLevel: settings.logLevel }
    }
  }
}
