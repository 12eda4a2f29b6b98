// A text cell of the CSV export as a spreadsheet would read it: the OWASP CSV-injection cases, and
// their forms with leading whitespace, line breaks and full-width characters, each gets its leading
// single quote; plain text, and a formula character anywhere but the start, is written as it came.
// One table, each row the cell as the profile data gives it and the cell as the file carries it.
import t from '../tap.ts'
import { textCell } from '../../src/services/reports/csv.ts'

const quoted = (s: string) => `"${s.replace(/"/g, '""')}"`

const CASES: Array<[string, string, string]> = [
  // the OWASP CSV-injection payloads
  ['=1+1', "'=1+1", 'equals'],
  ['+1+1', "'+1+1", 'plus'],
  ['-1+1', "'-1+1", 'minus'],
  ['@SUM(1+1)', "'@SUM(1+1)", 'at'],
  ["=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0", 'DDE through cmd'],
  ['=HYPERLINK("https://evil.example","click")', quoted('\'=HYPERLINK("https://evil.example","click")'), 'HYPERLINK, quoted for its quotes and comma'],
  ['\t=1+1', "'\t=1+1", 'a tab first'],
  ['\r=1+1', quoted("'\r=1+1"), 'a carriage return first'],
  ['\tplain', "'\tplain", 'a tab first, whatever follows'],
  // leading whitespace before a formula character, which spreadsheets skip
  [' =1+1', "' =1+1", 'a space'],
  ['   @SUM(A1)', "'   @SUM(A1)", 'several spaces'],
  [' \t-2+3', "' \t-2+3", 'a space and a tab'],
  ['\n=1+1', quoted("'\n=1+1"), 'a line feed first'],
  ['\r\n+1', quoted("'\r\n+1"), 'CRLF first'],
  ['\u00a0=1+1', "'\u00a0=1+1", 'a no-break space'],
  ['\u3000=1+1', "'\u3000=1+1", 'an ideographic space'],
  // full-width and small forms, which some spreadsheets fold to ASCII
  ['＝1+1', "'＝1+1", 'full-width equals'],
  ['＋1+1', "'＋1+1", 'full-width plus'],
  ['－1+1', "'－1+1", 'full-width minus'],
  ['＠SUM(1+1)', "'＠SUM(1+1)", 'full-width at'],
  [' ＝1+1', "' ＝1+1", 'a space, then full-width equals'],
  ['﹦1+1', "'﹦1+1", 'small equals'],
  ['﹣1', "'﹣1", 'small hyphen-minus'],
  // not formulas: written as they came (quoted only for RFC 4180)
  ['Alice', 'Alice', 'plain text'],
  ['a=1+1', 'a=1+1', 'a formula character after text'],
  ['  Alice', '  Alice', 'leading spaces before text'],
  ['Rock, pop', quoted('Rock, pop'), 'a comma'],
  ['say "hi"', quoted('say "hi"'), 'a quote'],
  ['two\r\nlines', quoted('two\r\nlines'), 'a line break inside'],
  ['', '', 'empty']
]

t.test('text cells: the OWASP CSV-injection cases and their whitespace and full-width forms', async (t) => {
  for (const [input, expected, name] of CASES) {
    t.equal(textCell(input), expected, `${name}: ${JSON.stringify(input)}`)
  }
})
