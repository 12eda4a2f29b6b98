// The TypeScript transpiler of tap's ts-node (tsconfig.tap.json names it): esbuild strips the types
// of each file, several times faster than TypeScript's own transpileModule; every test process
// compiles all of src/ again, so this is most of a test file's start-up. Types are checked by
// `npm run typecheck`, not here. The code is erasable TypeScript only (no enums, namespaces or
// parameter properties), so stripping is all a file needs.
'use strict'
// ts-node loads a transpiler with require(), so this file is CommonJS
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { transformSync } = require('esbuild')

exports.create = () => ({
  transpile (input, { fileName }) {
    const { code, map } = transformSync(input, { loader: 'ts', format: 'esm', target: 'es2022', sourcemap: 'external', sourcefile: fileName })
    return { outputText: code, sourceMapText: map }
  }
})
