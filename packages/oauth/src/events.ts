/**
 * Events for metrics and audit (never carrying secrets), delivered synchronously to `onEvent`.
 * A throwing listener is ignored.
 */
export type OAuthEvent =
  | { type: 'state_corrupt'; movedTo: string; reason: string }
  | { type: 'client_registered'; clientId: string }
  | { type: 'client_approved'; clientId: string; resource: string }
  | { type: 'family_revoked'; clientId: string; reason: string }
  | { type: 'login_succeeded'; ip: string }
  | { type: 'login_failed'; ip: string }
  | { type: 'login_throttled'; ip: string; retryAfterSec: number };

/** Receives {@link OAuthEvent}s. */
export type OAuthEventListener = (event: OAuthEvent) => void;

/**
 * Wraps a listener so that it can never break the caller.
 *
 * @param listener - the user's listener, if any
 * @returns a safe emitter
 */
export function safeEmitter(listener: OAuthEventListener | undefined): OAuthEventListener {
  return (event) => {
    try {
      listener?.(event);
    } catch {
      // A metrics hook must not fail a request.
    }
  };
}
