// CAPTCHA check against a siteverify-compatible endpoint (Turnstile, hCaptcha, reCAPTCHA all take
// secret, response, remoteip as a form and answer {success}).
export interface CaptchaOptions { enabled: boolean, verifyUrl: string, secret: string, timeoutMs?: number }

export function createCaptchaService (opts: CaptchaOptions) {
  return {
    async verify (token: string, remoteIp: string): Promise<boolean> {
      if (!token) return false
      if (!opts.enabled) return true
      const form = new URLSearchParams({ secret: opts.secret, response: token, remoteip: remoteIp })
      try {
        const res = await fetch(opts.verifyUrl, {
          method: 'POST',
          body: form,
          signal: AbortSignal.timeout(opts.timeoutMs ?? 5000)
        })
        if (!res.ok) return false
        const body = await res.json() as { success?: unknown }
        return body.success === true
      } catch {
        // The provider being down must not let sign-ups through.
        return false
      }
    }
  }
}

export type CaptchaService = ReturnType<typeof createCaptchaService>
