// The CSV files of a report export (docs/decisions/accounts.md, Journeys (server)): RFC 4180 (comma
// separated, CRLF line ends, a header row, a field quoted when it holds a comma, a quote or a line
// break, its quotes doubled). Numbers are written as JavaScript prints them (String(n)), the same
// digits the JSON API gives, so reading a cell back with Number() gives the API's double exactly.
// A text cell that a spreadsheet would run as a formula gets a leading single quote: names come from
// the profile data, which anyone on a network can choose (OWASP CSV injection). A formula is a cell
// that starts with = + - @, or with their full-width or small forms (＝ ＋ － ＠ ﹦ ﹢ ﹣ ﹫, which
// some spreadsheets fold to the ASCII ones), after any whitespace (spaces, tabs, line breaks, the
// ideographic space), which spreadsheets skip before looking; a cell that starts with a tab, a
// carriage return or a line feed is quoted whatever follows (docs/security.md, Findings).
// Numeric cells are never prefixed: they are numbers, and never negative.
import { SOURCES } from '../../../schemas/common.ts'
import type { Friend } from '../../../schemas/report.ts'
import type { ReportDetail } from '../../../schemas/export.ts'

const FORMULA_START = /^(?:[\t\r\n]|\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\uFE6B])/u
const NEEDS_QUOTES = /[",\r\n]/

export function textCell (value: string): string {
  const safe = FORMULA_START.test(value) ? `'${value}` : value
  return NEEDS_QUOTES.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe
}

const numberCell = (n: number): string => String(n)

function csv (header: string[], rows: string[][]): string {
  return [header, ...rows].map((cells) => `${cells.join(',')}\r\n`).join('')
}

export const INTERESTS_HEADER = ['source', 'interest_id', 'interest', 'category', 'share', 'relative', 'red_flag']

/** one row per (source, interest): every interest of the full tree, in tree order (category, then interest) */
export function interestsCsv (details: ReportDetail[]): string {
  const rows: string[][] = []
  for (const d of details) {
    for (const category of d.interests) {
      for (const i of category.interests) {
        // inside the tree a red-flag interest carries its bucket's id, and its `category` is the bucket's label
        const redFlag = i.redCatId !== undefined ? i.category ?? '' : ''
        rows.push([textCell(d.source), textCell(i.id), textCell(i.name), textCell(category.name), numberCell(i.share), numberCell(i.relative), textCell(redFlag)])
      }
    }
  }
  return csv(INTERESTS_HEADER, rows)
}

export const FRIENDS_HEADER = ['source', 'friend_id', 'username', 'fullname', 'link', 'common_interests', 'red_flags']

/** one row per (source, friend) in either list: the common-interests list's order, then the friends only on the red-flags list */
export function friendsCsv (details: ReportDetail[]): string {
  const rows: string[][] = []
  for (const d of details) {
    const seen = new Set<string>()
    const friends: Friend[] = []
    for (const f of [...d.friends.common, ...d.friends.redFlags]) {
      if (seen.has(f.id)) continue
      seen.add(f.id)
      friends.push(f)
    }
    for (const f of friends) {
      rows.push([textCell(d.source), textCell(f.id), textCell(f.username), textCell(f.fullname), textCell(f.link), numberCell(f.count), numberCell(f.redFlagsCount)])
    }
  }
  return csv(FRIENDS_HEADER, rows)
}

interface StoredDetail { tree: ReportDetail['interests'], friends: ReportDetail['friends'], diffs: ReportDetail['diffs'] }

/** the stored per-source details of a report (reports.details), in source order */
export function exportDetails (stored: Record<string, unknown>): ReportDetail[] {
  const out: ReportDetail[] = []
  for (const source of SOURCES) {
    const d = stored[source] as StoredDetail | undefined
    if (d) out.push({ source, interests: d.tree, friends: { common: d.friends.common, redFlags: d.friends.redFlags }, diffs: d.diffs })
  }
  return out
}

/** the JSON export: the stored body of GET /report/{id}, byte for byte, with `details` added at its end */
export function exportJson (body: string, details: ReportDetail[]): string {
  return `${body.slice(0, body.lastIndexOf('}'))},"details":${JSON.stringify(details)}}`
}
