// The environment the configuration reads: the process's variables over the working directory's
// `.env`, a blank value unset wherever it comes from. src/config.ts hands it the process's variables
// (it alone reads them); this file reads the `.env` file.
import { readFileSync } from 'node:fs'
import { parseEnv as parseDotEnv } from 'node:util'
import { ConfigError } from '../errors.ts'

export type Source = Record<string, string | undefined>

/**
 * The variables that have a value. `NAME=` is unset, not empty: compose's `env_file`, systemd's
 * `EnvironmentFile=` and Kubernetes' `envFrom` pass the blank lines of a copied `.env.example` as
 * empty strings, and every default and every "unset means off" of the configuration must hold for them.
 */
export function withoutBlanks (source: Source): Record<string, string> {
  const data: Record<string, string> = {}
  for (const [k, v] of Object.entries(source)) if (v !== undefined && v.trim() !== '') data[k] = v
  return data
}

// `NAME=` followed by spaces or tabs alone, made `NAME=` before Node parses the file: Node 22's and
// 24's util.parseEnv read such a line's value from the next line (`PORT=   ` then `CAPTCHA=` gives
// PORT the text `CAPTCHA=` and loses CAPTCHA), where Node 20 reads it as blank.
const WHITESPACE_VALUE = /^(\s*(?:export\s+)?[\w.-]+\s*=)[ \t]+$/gm

/**
 * The environment, with the `.env` file of the working directory (when there is one) filling what the
 * environment leaves unset: the environment wins, as with `node --env-file`. Node parses the file
 * (util.parseEnv, the same rules as --env-file), so no dotenv library is needed. The file cannot
 * set UV_THREADPOOL_SIZE: libuv has read it from the process's environment before this runs, and
 * the configuration sizes ARGON2_CONCURRENCY by the pool the process really has.
 */
export function withDotEnv (env: Source, file: string): Record<string, string> {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return withoutBlanks(env)
    throw new ConfigError(`invalid configuration: ${file} cannot be read (${code})`)
  }
  const { UV_THREADPOOL_SIZE: _ignored, ...fromFile } = parseDotEnv(text.replace(WHITESPACE_VALUE, '$1'))
  return { ...withoutBlanks(fromFile), ...withoutBlanks(env) }
}
