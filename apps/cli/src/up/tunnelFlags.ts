/**
 * The tunnel flags of `mcppipe up` (DESIGN.md T2, T5, T7), a part of the one flag table in flags.ts.
 *
 * This module imports nothing at run time: early.ts loads the flag table before anything else.
 */
import type { Options } from 'yargs';

/** Auth modes of `--tunnel-auth` (DESIGN.md T5). */
export const tunnelAuthModes = ['oauth', 'api-key', 'none'] as const;
export type TunnelAuthMode = (typeof tunnelAuthModes)[number];

/** The tunnel flags (yargs option definitions), spread into `upOptions`. */
export const tunnelOptions = {
  tunnel: {
    requiresArg: true,
    type: 'string',
    describe: 'Also serve through a relay: its URL (e.g. https://gw.example; /tunnel/connect is added)',
  },
  'api-key': {
    requiresArg: true,
    type: 'string',
    describe: 'API key of your relay account (for --tunnel; never logged)',
  },
  subdomain: {
    requiresArg: true,
    type: 'string',
    describe: 'Tunnel subdomain (default: derived from the upstream names and this host)',
  },
  'tunnel-auth': {
    choices: tunnelAuthModes,
    default: 'oauth',
    describe: 'Who may call the public URL: oauth, api-key (a key of your account) or none',
  },
  'allow-ip': {
    requiresArg: true,
    type: 'string',
    array: true,
    default: [],
    describe: 'Only these client addresses may call the public URL: CIDR or address (repeatable)',
  },
  'zero-knowledge': {
    type: 'boolean',
    default: false,
    describe: 'Relay raw HTTP bytes to a single HTTP upstream; nothing parses JSON-RPC (T7)',
  },
  'hold-changed-tools': {
    type: 'boolean',
    default: false,
    describe:
      "Hide a tool whose definition changed since it was pinned until you accept it in the relay's API (E4; with --tunnel)",
  },
} satisfies Record<string, Options>;
