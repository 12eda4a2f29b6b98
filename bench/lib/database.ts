// A fresh PostgreSQL database per scenario, created and dropped by the harness.
import postgres from 'postgres'
import { settings } from './settings.ts'

export interface BenchDatabase {
  name: string
  url: string
  drop: () => Promise<void>
}

function withDatabase (url: string, name: string): string {
  const u = new URL(url)
  u.pathname = `/${name}`
  return u.toString()
}

export async function freshDatabase (label: string): Promise<BenchDatabase> {
  const name = `bench_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${process.pid}_${Date.now().toString(36)}`
  const admin = postgres(settings.adminUrl, { max: 1, onnotice: () => {} })
  try {
    await admin.unsafe(`create database "${name}"`)
  } finally {
    await admin.end({ timeout: 5 })
  }
  return {
    name,
    url: withDatabase(settings.adminUrl, name),
    async drop () {
      const a = postgres(settings.adminUrl, { max: 1, onnotice: () => {} })
      try {
        await a.unsafe(`drop database if exists "${name}" with (force)`)
      } finally {
        await a.end({ timeout: 5 })
      }
    }
  }
}
