// The baselines of the HTTP scenarios: a bare Fastify server (no plugins, no logger) with
// - GET /hello, POST /hello: {hello:'world'} (scenarios 1, 4 and 5)
// - GET /bytes: the bytes of BENCH_BYTES_FILE as application/json (scenario 2: the same bytes as the report)
// - POST /argon2 {password}: argon2.verify against a hash made at start with the service's parameters
//   (scenario 3: argon2.verify alone, same parameters, same concurrency and threadpool)
import { readFileSync } from 'node:fs'
import argon2 from 'argon2'
import Fastify from 'fastify'

const env = process.env
const port = Number(env.PORT)
const bytes = env.BENCH_BYTES_FILE ? readFileSync(env.BENCH_BYTES_FILE) : Buffer.from('{}')
const params = {
  type: argon2.argon2id as 2,
  memoryCost: Number(env.ARGON2_MEMORY_KIB || 19456),
  timeCost: Number(env.ARGON2_TIME_COST || 2),
  parallelism: Number(env.ARGON2_PARALLELISM || 1)
}
const hash = await argon2.hash(env.BENCH_PASSWORD || 'a long bench pass phrase', params)

const app = Fastify({ logger: false })
app.get('/health', async () => ({ ok: true }))
app.get('/hello', async () => ({ hello: 'world' }))
app.post('/hello', async () => ({ hello: 'world' }))
app.get('/bytes', async (_request, reply) => reply.type('application/json; charset=utf-8').send(bytes))
app.post<{ Body: { password: string } }>('/argon2', async (request) => {
  const ok = await argon2.verify(hash, request.body.password)
  return { status: ok ? 'success' : 'error' }
})

process.once('SIGTERM', () => { app.close().then(() => process.exit(0), () => process.exit(1)) })
await app.listen({ host: '127.0.0.1', port })
