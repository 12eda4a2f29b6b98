// The answers of a refused proof of the account's owner (a password or a Google credential), the same
// wherever one is asked for: deleting the account and renewing a session's proof.
import type { FastifyReply } from 'fastify'
import { BadRequest, ProofRefused, Unauthorized } from '../../errors.ts'
import { limitRefused } from '../../plugins/refusal-log.ts'
import { PROOF_MESSAGES, type ProofOutcome } from '../../services/accounts/owner-proof.ts'

/** throws the answer of a proof that did not prove the owner; returns for any other outcome */
export function refuseUnproved (outcome: ProofOutcome | { status: 'deleted' }, reply: FastifyReply): void {
  switch (outcome.status) {
    case 'unknown': throw new Unauthorized()
    case 'missing-proof': throw new BadRequest(PROOF_MESSAGES.missing)
    case 'refused': throw new ProofRefused(outcome.message)
    case 'locked':
      reply.header('retry-after', String(outcome.retryAfter))
      throw outcome.limiter === undefined ? limitRefused('signin-backoff', 'email') : limitRefused(outcome.limiter, 'user')
  }
}
