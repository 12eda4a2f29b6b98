// verifyWebhook's type, checked by the TypeScript compiler under the client's own compiler options
// (client/tsconfig.json: strict, exactOptionalPropertyTypes): test/client/webhook-narrowing.ts, where
// `switch (event.type)` narrows each event's data, compiles clean, and without its
// `@ts-expect-error` lines it fails exactly there, each a field or type the union refuses.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import t from '../tap.ts'

const fixture = fileURLToPath(new URL('./webhook-narrowing.ts', import.meta.url))
const clientConfig = fileURLToPath(new URL('../../client/tsconfig.json', import.meta.url))

function compilerOptions (): ts.CompilerOptions {
  const read = ts.readConfigFile(clientConfig, (f) => ts.sys.readFile(f))
  const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, fileURLToPath(new URL('../../client/', import.meta.url)))
  // the fixture lies outside the client's rootDir; nothing is written
  return { ...parsed.options, rootDir: undefined, outDir: undefined, declaration: false, noEmit: true }
}

/** the diagnostics of the fixture compiled with `source` in its place: [line, code, message] */
function diagnostics (source: string): Array<[number, number, string]> {
  const options = compilerOptions()
  const host = ts.createCompilerHost(options)
  const readFile = host.readFile.bind(host)
  host.readFile = (name) => name === fixture ? source : readFile(name)
  const program = ts.createProgram([fixture], options, host)
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0
    return [line, d.code, ts.flattenDiagnosticMessageText(d.messageText, ' ')]
  })
}

const source = readFileSync(fixture, 'utf8')
const lines = source.split('\n')
const directive = (line: string) => line.trimStart().startsWith('// @ts-expect-error')

t.test('a switch on the event type narrows each event\'s data: the fixture compiles clean', async (t) => {
  t.same(diagnostics(source), [])
})

t.test('without its @ts-expect-error lines, the fixture fails on each refused field and type', async (t) => {
  const expected = lines.flatMap((l, i) => directive(l) ? [i + 2] : [])
  t.equal(expected.length, 3, 'three refusals in the fixture')
  const stripped = lines.map((l) => directive(l) ? '' : l).join('\n')
  const found = diagnostics(stripped)
  t.same(found.map(([line]) => line), expected, 'errors on those lines and nowhere else')
  t.match(found[0], [expected[0], 2339, /Property 'generatedAt' does not exist/], 'report.failed has no generatedAt')
  t.match(found[1], [expected[1], 2339, /Property 'webhookId' does not exist/], 'not every event has webhookId')
  t.match(found[2], [expected[2], 2367, /report\.deleted/], 'report.deleted is no event type')
})
