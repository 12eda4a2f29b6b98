// The reporter `npm test` uses when its output is not a terminal (test/run-suite.js): tap's own
// reporters redraw a status line for every assertion, which a pipe or a log file keeps as thousands
// of lines. This one reads tap's TAP stream and writes a short summary: a line per group (or test
// file run alone) as it ends, with its wall time and the CPU a group cost (test/group.ts), then
// every skipped test with its reason, every failed assertion in full, the ten slowest test files
// with their time, and the totals. The times are what docs/decisions/the-house.md, Test suite,
// measures the suite by.
import { Transform } from 'node:stream'
import { Parser } from 'tap-parser'
import { stringify } from 'yaml'

const seconds = (ms) => {
  if (ms < 59_950) return `${(ms / 1000).toFixed(1)}s`
  const s = Math.round(ms / 1000)
  return `${Math.floor(s / 60)}m ${s % 60}s`
}

export default class SummaryReporter extends Transform {
  constructor () {
    super()
    this.started = Date.now()
    this.counts = { pass: 0, fail: 0, skip: 0, todo: 0 }
    this.skips = []
    this.failures = []
    this.files = 0
    this.fileTimes = []
    this.cpu = 0
    this.groupCpu = null
    this.parser = new Parser()
    this.watch(this.parser, 0)
  }

  /**
   * Every parser of the tree: a top-level assertion is a test file; below, an assertion that follows
   * a child parser is that subtest's result, any other is an assertion a test made.
   */
  watch (parser, level) {
    let subtestPending = false
    parser.on('child', (child) => {
      subtestPending = true
      this.watch(child, level + 1)
    })
    parser.on('assert', (res) => {
      const subtest = subtestPending
      subtestPending = false
      if (res.skip) this.skips.push(`${res.fullname}: ${res.skip === true ? 'skipped' : res.skip}`)
      if (level === 0) {
        this.files++
        const cpu = this.groupCpu === null ? '' : `, cpu ${seconds(this.groupCpu.own + this.groupCpu.children)} (children ${seconds(this.groupCpu.children)})`
        this.groupCpu = null
        this.push(`${res.ok ? 'ok  ' : 'FAIL'} ${res.name}${res.skip ? ' (skipped)' : ''}${res.time ? ` (${seconds(res.time)}${cpu})` : ''}\n`)
        if (!subtest && !res.ok && !res.skip && !res.todo) this.failures.push(res)
        return
      }
      // a test file inside a group is the group's subtest (test/group.ts names it for its file)
      if (subtest && level === 1 && res.time) this.fileTimes.push({ name: res.name, time: res.time })
      if (subtest) return
      if (res.todo) this.counts.todo++
      else if (res.skip) this.counts.skip++
      else if (res.ok) this.counts.pass++
      else {
        this.counts.fail++
        this.failures.push(res)
      }
    })
    if (level === 1) {
      parser.on('comment', (line) => {
        const m = /^# group cpu: (\d+) ms own, (\d+) ms children/.exec(line.trim())
        if (!m) return
        this.groupCpu = { own: Number(m[1]), children: Number(m[2]) }
        this.cpu += this.groupCpu.own + this.groupCpu.children
      })
    }
    if (level === 0) parser.on('extra', (line) => this.push(line))
  }

  _transform (chunk, _encoding, done) {
    this.parser.write(chunk)
    done()
  }

  _flush (done) {
    this.parser.end()
    if (this.skips.length) {
      this.push(`\nskipped (${this.skips.length}):\n`)
      for (const line of this.skips) this.push(`  ${line}\n`)
    }
    for (const res of this.failures) {
      this.push(`\nnot ok ${res.fullname}\n`)
      // a diagnostic may hold what YAML has no tag for (a function a failed test passed on): as text
      if (res.diag) this.push(stringify(res.diag, (_key, value) => typeof value === 'function' ? `[function ${value.name || 'anonymous'}]` : value).replace(/^/gm, '  '))
    }
    if (this.fileTimes.length) {
      this.push('\nslowest test files:\n')
      for (const { name, time } of this.fileTimes.sort((a, b) => b.time - a.time).slice(0, 10)) {
        this.push(`  ${seconds(time).padStart(7)}  ${name}\n`)
      }
    }
    const { pass, fail, skip, todo } = this.counts
    this.push(`\n${pass + fail + skip + todo} assertions: ${pass} pass, ${fail} fail, ${skip} skip, ${todo} todo; ` +
      `${this.files} groups or files in ${seconds(Date.now() - this.started)}` +
      `${this.cpu ? `, ${seconds(this.cpu)} of CPU` : ''}\n`)
    done()
  }
}
