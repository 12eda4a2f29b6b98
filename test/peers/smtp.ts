// A local SMTP server (smtp-server) that keeps every message it receives, so tests can follow a
// mailed link the way a user would. Plain SMTP on 127.0.0.1: no authentication, no STARTTLS.
// Mail leaves the service after the HTTP answer, so tests wait for it with `waitFor` (bounded polling).
// `hold()` keeps every delivery waiting at RCPT TO until released: an answer that arrives while the
// server holds the mail shows that the service did not wait for it.
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'
import { until } from './wait.ts'

export interface ReceivedMail {
  /** envelope sender */
  from: string
  /** envelope recipients, lower-cased */
  to: string[]
  subject: string
  /** the body, transfer-decoded (quoted-printable or base64) */
  text: string
  raw: string
}

/** headers and transfer-decoded body of a single-part RFC 822 message */
export function parseMail (raw: string): { headers: string, body: string } {
  const split = raw.search(/\r?\n\r?\n/)
  const headers = split < 0 ? raw : raw.slice(0, split)
  let body = split < 0 ? '' : raw.slice(split).replace(/^\r?\n\r?\n/, '')
  if (/^content-transfer-encoding:\s*quoted-printable/im.test(headers)) {
    body = Buffer.from(body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8')
  } else if (/^content-transfer-encoding:\s*base64/im.test(headers)) {
    body = Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
  }
  return { headers, body: body.replace(/\r\n/g, '\n') }
}

export async function startSmtp (t?: { teardown: (fn: () => unknown) => void }) {
  const mails: ReceivedMail[] = []
  /** every recipient a client asked to deliver to, accepted or still held */
  const recipients: string[] = []
  let held: Array<() => void> | null = null
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo (address, _session, callback) {
      recipients.push(address.address.toLowerCase())
      if (held) held.push(() => callback())
      else callback()
    },
    onData (stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8')
        const { headers, body } = parseMail(raw)
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          subject: /^subject:\s*(.*)$/im.exec(headers)?.[1]?.trim() ?? '',
          text: body,
          raw
        })
        callback()
      })
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as AddressInfo
  const close = () => new Promise<void>((resolve) => {
    for (const go of held ?? []) go()
    held = null
    server.close(() => resolve())
  })
  t?.teardown(close)

  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    recipients,
    /** hold deliveries at RCPT TO until the returned function is called */
    hold (): () => void {
      held ??= []
      return () => {
        const waiting = held ?? []
        held = null
        for (const go of waiting) go()
      }
    },
    /** the messages sent to this address so far */
    to: (address: string) => mails.filter((m) => m.to.includes(address.toLowerCase())),
    /** the first mail matching, polled for at most `timeoutMs` */
    waitFor: (match: (m: ReceivedMail) => boolean, timeoutMs = 5000): Promise<ReceivedMail> =>
      until(() => mails.find(match), { timeoutMs, what: `a matching mail (have ${mails.length})` }),
    close
  }
}

export type SmtpPeer = Awaited<ReturnType<typeof startSmtp>>
