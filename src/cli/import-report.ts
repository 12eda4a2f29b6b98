// What `npm run import` shows: a progress line on a terminal (lines done, lines per second, elapsed
// time, time left) and the summary at the end. Pure text, so it is tested without a terminal.
import { RECORD_TYPES } from '../../schemas/ingest.ts'
import type { ImportOutcome, ImportProgress } from '../services/ingest/index.ts'

const number = (n: number) => Math.round(n).toLocaleString('en-US')

/** 75 -> "1:15", 3725 -> "1:02:05" */
export function clock (seconds: number): string {
  const s = Math.max(0, Math.round(seconds))
  const [h, m, r] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60]
  const mm = h ? String(m).padStart(2, '0') : String(m)
  return `${h ? `${h}:` : ''}${mm}:${String(r).padStart(2, '0')}`
}

/**
 * One progress line. Lines per second count every line read over every pass (the input is read
 * once to validate it, then once per write pass); the time left comes from the bytes still to read.
 */
export function progressLine (p: ImportProgress, linesRead: number, elapsedSeconds: number, width = 80): string {
  const fraction = p.total ? p.done / p.total : 0
  const lines = p.lines ? `${number(p.line)}/${number(p.lines)} lines` : `${number(p.line)} lines`
  const rate = elapsedSeconds > 0 ? `${number(linesRead / elapsedSeconds)} lines/s` : '- lines/s'
  const left = fraction > 0 && fraction < 1 ? `~${clock((elapsedSeconds * (1 - fraction)) / fraction)} left` : ''
  const stage = `${p.stage} ${p.pass}/${p.passes}`
  const text = [`${stage.padEnd(12)} ${(fraction * 100).toFixed(1).padStart(5)}%`, lines, rate, `${clock(elapsedSeconds)} elapsed`, left]
    .filter(Boolean).join('  ')
  return text.length > width - 1 ? text.slice(0, width - 1) : text
}

/** the end: what the import did, per record type */
export function summaryText (outcome: ImportOutcome, elapsedSeconds: number): string {
  const counts = RECORD_TYPES.map((type) => `${type} ${outcome.imported[type]}`).join(', ')
  const rows = RECORD_TYPES.map((type) => {
    const s = outcome.summary[type]
    return `  ${type.padEnd(9)} ${number(s.inserted).padStart(11)} ${number(s.updated).padStart(11)} ${number(s.unchanged).padStart(11)}`
  })
  const replaced = outcome.replaced ? `; ${number(outcome.replaced)} record${outcome.replaced === 1 ? '' : 's'} replaced by a later one of the same key` : ''
  return [
    `imported: ${counts}`,
    `  ${'type'.padEnd(9)} ${'inserted'.padStart(11)} ${'updated'.padStart(11)} ${'unchanged'.padStart(11)}`,
    ...rows,
    `in ${clock(elapsedSeconds)}${replaced}`
  ].join('\n')
}
