// The signature verifiers docs/integration.md gives a program's author, in Node with node:crypto and
// in Python with its standard library, run as printed there against deliveries signed as the service
// signs them: one signature, two during a rotation, and refusals for a changed body, a wrong secret
// and an old timestamp.
import { execFileSync } from 'node:child_process'
import { createHmac, randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from '../tap.ts'

const doc = readFileSync(new URL('../../docs/integration.md', import.meta.url), 'utf8')
const block = (lang: string, heading: string) => {
  const section = doc.slice(doc.indexOf(heading))
  const m = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(section)
  if (!m) throw new Error(`no ${lang} block under ${heading}`)
  return m[1]
}

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`
const sign = (secret: string, id: string, timestamp: number, body: string) =>
  'v1,' + createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(`${id}.${timestamp}.${body}`).digest('base64')

const secret = newSecret()
const previous = newSecret()
const now = Math.floor(Date.now() / 1000)
const body = JSON.stringify({ type: 'report.ready', timestamp: new Date().toISOString(), data: { reportId: '2b0c5a8e-6d1f-4c55-9a0e-3f1d2f4b9c10', generatedAt: new Date().toISOString() } })
const id = '5f0e9a52-3c1d-4c6b-8d1e-0a2b3c4d5e6f'
const headersAt = (ts: number, signature = sign(secret, id, ts, body)) =>
  ({ 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': signature })

/** [what, secret, headers, body, accepted] */
const cases: Array<[string, string, Record<string, string>, string, boolean]> = [
  ['one signature', secret, headersAt(now), body, true],
  ['two signatures during a rotation, the new secret', secret, headersAt(now, `${sign(previous, id, now, body)} ${sign(secret, id, now, body)}`), body, true],
  ['two signatures during a rotation, the previous secret', previous, headersAt(now, `${sign(previous, id, now, body)} ${sign(secret, id, now, body)}`), body, true],
  ['a changed body', secret, headersAt(now), body.replace('ready', 'failed'), false],
  ['another secret', newSecret(), headersAt(now), body, false],
  ['a timestamp ten minutes old', secret, headersAt(now - 600), body, false],
  ['no signature header', secret, { 'webhook-id': id, 'webhook-timestamp': String(now) }, body, false]
]

const dir = mkdtempSync(join(tmpdir(), 'pir-doc-'))

t.test('the Node verifier of docs/integration.md', async (t) => {
  const file = join(dir, 'verify.mjs')
  writeFileSync(file, block('js', '### Verifying a signature in Node'))
  const { verify } = await import(pathToFileURL(file).href) as { verify: (s: string, h: Record<string, string>, b: Buffer) => boolean }
  for (const [what, key, headers, text, accepted] of cases) t.equal(verify(key, headers, Buffer.from(text)), accepted, what)
})

t.test('the Python verifier of docs/integration.md, with its standard library alone', async (t) => {
  const file = join(dir, 'verify.py')
  writeFileSync(file, block('python', '### Verifying a signature in Python') + `
import json, sys
for case in json.load(sys.stdin):
    print(verify(case["secret"], case["headers"], case["body"].encode()))
`)
  const input = JSON.stringify(cases.map(([, key, headers, text]) => ({ secret: key, headers, body: text })))
  const out = execFileSync('python3', ['-I', file], { input, encoding: 'utf8' }).trim().split('\n')
  cases.forEach(([what, , , , accepted], i) => t.equal(out[i], accepted ? 'True' : 'False', what))
})
