// Outgoing mail: SMTP through nodemailer, or in development RFC 822 files in DATA_DIR/outbox.
import { mkdir, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import nodemailer from 'nodemailer'

export interface Mail {
  to: string
  subject: string
  text: string
  /** logged in development outbox mode only */
  link?: string
  /** extra header fields (the alert digest's List-Unsubscribe) */
  headers?: Record<string, string>
}
export interface MailLogger { info: (obj: object, msg: string) => void, error: (obj: object, msg: string) => void }

export interface MailOptions {
  smtpUrl: string
  from: string
  outboxDir: string
  log: MailLogger
  /** outbox mode: put the mailed link in the log line (NODE_ENV=development only; it holds a secret) */
  logLinks?: boolean
}

export function createMailService (opts: MailOptions) {
  const transport = opts.smtpUrl
    ? nodemailer.createTransport(opts.smtpUrl)
    : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
  let seq = 0

  async function send (mail: Mail): Promise<void> {
    const { link, ...message } = mail
    const info = await transport.sendMail({ from: opts.from, ...message })
    if (!opts.smtpUrl) {
      // a mail carries a confirmation or recovery secret: owner-only, as everything under DATA_DIR
      await mkdir(opts.outboxDir, { recursive: true, mode: 0o700 })
      const file = join(opts.outboxDir, `${Date.now()}-${process.pid}-${++seq}.eml`)
      // written whole under another name, then renamed: whoever watches the folder never reads half a mail
      await writeFile(`${file}.part`, (info as unknown as { message: Buffer }).message, { mode: 0o600 })
      await rename(`${file}.part`, file)
      // The link in the log saves opening the file, but it carries a recovery or confirmation secret:
      // development only (production refuses the outbox; tests assert that no log line holds a secret).
      opts.log.info({ file, subject: mail.subject, ...(opts.logLinks ? { link } : {}) }, 'mail written to outbox')
    }
  }

  const pending = new Set<Promise<void>>()

  return {
    send,
    /** send after the answer has left: a slow or failing mail server never delays or fails a request */
    sendLater (mail: Mail): void {
      const sending = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => send(mail))
        .catch((err: Error) => opts.log.error({ err: { message: err.message } }, 'mail not sent'))
        .finally(() => pending.delete(sending))
      pending.add(sending)
    },
    /** after the mails already accepted have gone (or failed): a shutdown loses none of them */
    async close (): Promise<void> {
      await Promise.all(pending)
      transport.close()
    }
  }
}

export type MailService = ReturnType<typeof createMailService>
