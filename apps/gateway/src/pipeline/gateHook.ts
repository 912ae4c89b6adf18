/**
 * Stage 4 (DESIGN.md G5): the per-client gate as an `onRequest` hook after the audience check. The permit
 * is returned when the Node response closes — which it does on every ending: a normal finish, an error
 * answer, a client abort or a socket timeout — so no path can leak it.
 *
 * @module
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { PipelineObserver } from '../types.js';
import type { AuthedRaw } from './auth.js';
import type { ClientGate } from './clientGate.js';
import { RPC, refuse } from './rpcError.js';

/**
 * Builds the gate hook.
 *
 * @param gate - the per-client gate
 * @param observer - stage observer
 */
export function createGateHook(gate: ClientGate, observer?: PipelineObserver) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const clientId = (req.raw as AuthedRaw).auth?.clientId ?? '';
    const result = gate.acquire(clientId);
    if (!result.ok) {
      observer?.('gate', 'reject');
      reply.header('retry-after', String(result.retryAfterSec));
      const message =
        result.reason === 'rate'
          ? 'Too many requests: this client exceeded its requests per minute'
          : 'Too many requests: this client has too many requests in flight';
      return refuse(reply, 429, { code: RPC.serverError, message });
    }
    observer?.('gate', 'pass');
    if (reply.raw.writableFinished || reply.raw.destroyed) {
      result.release();
      return;
    }
    reply.raw.once('close', result.release);
  };
}
