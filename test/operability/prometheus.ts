// Scraping the metrics listener in tests: the Prometheus text format as samples.
import type { MetricsListener } from '../../src/startup.ts'

export interface Sample { name: string, labels: Record<string, string>, value: number }

/** the exposition text as samples (comments left out) */
export function parse (text: string): Sample[] {
  const out: Sample[] = []
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (!m) throw new Error(`not an exposition line: ${line}`)
    const labels: Record<string, string> = {}
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2]
    out.push({ name: m[1], labels, value: Number(m[3]) })
  }
  return out
}

export function find (samples: Sample[], name: string, labels: Record<string, string> = {}): Sample | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
}

export async function scrape (listener: MetricsListener): Promise<{ samples: Sample[], text: string }> {
  const res = await fetch(`http://127.0.0.1:${listener.port}/metrics`)
  if (res.status !== 200) throw new Error(`scrape answered ${res.status}`)
  const text = await res.text()
  return { samples: parse(text), text }
}
