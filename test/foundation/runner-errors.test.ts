// tap fails the test whose code threw, however late: an error thrown in a timer, or a promise left
// rejected, belongs to the test that started it. tap finds that test through async-hook-domain's
// domains, which the project patches to follow the running code with an AsyncLocalStorage
// (patches/, docs/decisions/the-house.md, Test suite); these tests hold the patch to the original's
// behaviour.
import { AsyncResource } from 'node:async_hooks'
import { Domain } from 'async-hook-domain'
import t from '../tap.ts'

interface Caught { error: Error, type: string, domain: string }

/**
 * runs `start` in a context of its own under a domain named 'outer' (`nested` opens a named domain
 * inside it) and resolves with the first error a domain gets, and that domain's name
 */
function caught (start: (nested: (name: string, start: () => void) => void) => void): Promise<Caught> {
  return new Promise((resolve) => {
    // an error no domain got is tap's to report; this test then ends with a clear miss, not a hang
    setTimeout(() => resolve({ error: new Error('no domain got the error'), type: 'none', domain: 'none' }), 5000).unref()
    const domains: Domain[] = []
    const open = (name: string, run: () => void) => {
      new AsyncResource('runner-errors').runInAsyncScope(() => {
        const domain = new Domain((error, type) => {
          for (const d of domains) d.destroy()
          resolve({ error: error as Error, type, domain: name })
        })
        domains.push(domain)
        run()
      })
    }
    open('outer', () => start(open))
  })
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

t.test('an error thrown in a timer reaches the domain that set the timer', async (t) => {
  const { error, type, domain } = await caught(() => { setTimeout(() => { throw new Error('thrown in a timer') }, 1) })
  t.same([error.message, type, domain], ['thrown in a timer', 'uncaughtException', 'outer'])
})

t.test('a promise left rejected reaches the domain that made it', async (t) => {
  const { error, type, domain } = await caught(() => { void Promise.reject(new Error('left rejected')) })
  t.same([error.message, type, domain], ['left rejected', 'unhandledRejection', 'outer'])
})

t.test('an async function that rejects after an await reaches the domain that called it', async (t) => {
  const { error, type, domain } = await caught(() => {
    void (async () => {
      await tick(1)
      throw new Error('rejected after an await')
    })()
  })
  t.same([error.message, type, domain], ['rejected after an await', 'unhandledRejection', 'outer'])
})

t.test('a nested domain gets its own errors, not its parent', async (t) => {
  const { error, domain } = await caught((nested) => {
    nested('inner', () => { setImmediate(() => { throw new Error('thrown inside') }) })
  })
  t.same([error.message, domain], ['thrown inside', 'inner'])
})

t.test('once a nested domain is destroyed, what it started falls to its parent', async (t) => {
  const { error, domain } = await caught((nested) => {
    nested('inner', () => {
      new Domain(() => t.fail('a destroyed domain got an error')).destroy()
      setTimeout(() => { throw new Error('thrown after the inner domain ended') }, 1)
    })
  })
  t.same([error.message, domain], ['thrown after the inner domain ended', 'inner'])
})
