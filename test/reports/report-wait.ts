// Reports through the API: create one, generate it, poll it until it reaches a state (bounded).
import type { FastifyInstance } from 'fastify'

export async function waitForStatus (app: FastifyInstance, auth: Record<string, string>, id: string, statuses: string[], timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs
  while (Date.now() < until) {
    const res = await app.inject({ url: `/api/v1/report/${id}`, headers: auth })
    if (statuses.includes(res.json().status)) return res
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`report ${id} never reached ${statuses.join('/')}`)
}

export async function createReport (app: FastifyInstance, auth: Record<string, string>, profiles = [{ source: 'ig', username: 'jdoe' }]) {
  const res = await app.inject({ method: 'POST', url: '/api/v1/report', headers: auth, payload: { profiles } })
  if (res.statusCode !== 201) throw new Error(`create failed: ${res.body}`)
  return res.json().id as string
}

/** a report of these profiles, created and generated through the API, once it is ready */
export async function readyReport (app: FastifyInstance, auth: Record<string, string>, profiles = [{ source: 'ig', username: 'jdoe' }]) {
  const id = await createReport(app, auth, profiles)
  const gen = await app.inject({ method: 'POST', url: `/api/v1/report/${id}/generate`, headers: auth })
  if (gen.statusCode !== 202) throw new Error(`generate failed: ${gen.body}`)
  await waitForStatus(app, auth, id, ['ready'], 60_000)
  return id
}
