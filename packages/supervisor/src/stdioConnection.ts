import { STDERR_LINES_IN_ERRORS } from './defaults.js';
import type { ConnectContext, Connection } from './connection.js';
import { connectWithin, createClient, handshakeFacts, loadStdio } from './connection.js';
import { describeError } from './errors.js';

function exitReason(info: { code: number | null; signal: string | null } | undefined): string {
  if (!info) return 'the process closed its stdio';
  return info.signal
    ? `the process was killed by ${info.signal}`
    : `the process exited with code ${info.code}`;
}

function withStderr(message: string, lines: string[]): string {
  return lines.length === 0 ? message : `${message}; stderr: ${lines.join(' | ')}`;
}

/** Spawns a stdio upstream and runs the handshake (legacy era unless the spec asks otherwise: one spawn only). */
export async function openStdioConnection(ctx: ConnectContext, deadline: number): Promise<Connection> {
  if (ctx.spec.transport !== 'stdio') throw new TypeError('not a stdio upstream');
  const stdio = await loadStdio();
  const transport = stdio.createStdioTransport(ctx.spec, {
    vars: ctx.vars,
    supervisorId: ctx.supervisorId,
    spawnToken: ctx.spawnToken,
    spawn: ctx.spawn,
    killGraceMs: ctx.killGraceMs,
    stderrTailBytes: ctx.stderrTailBytes,
    onSkippedLine: ctx.onSkippedLine,
  });
  const protocol = ctx.spec.protocol ?? 'legacy';
  const client = createClient(ctx, protocol);
  let raw;
  try {
    raw = await connectWithin(
      ctx,
      { client, transport, deadline },
      protocol === 'legacy' ? { prior: { kind: 'legacy' } } : {},
    );
  } catch (err) {
    const lines = transport.stderrExcerpt(STDERR_LINES_IN_ERRORS);
    const exited = transport.exitInfo ? `${exitReason(transport.exitInfo)}: ` : '';
    const message = withStderr(`${exited}${describeError(err)}`, lines);
    throw Object.assign(err instanceof Error ? err : new Error(String(err)), { message });
  }
  let closing: Promise<void> | undefined;
  const connection: Connection = {
    client,
    via: 'stdio',
    pid: transport.pid,
    ...handshakeFacts(client, raw),
    stderrLines: (count) => transport.stderrLines(count),
    describe: describeError,
    close() {
      closing ??= (async () => {
        connection.onDeath = undefined;
        await client.close().catch(() => {});
        await transport.close();
      })();
      return closing;
    },
    onDeath: undefined,
  };
  let reported: string | undefined;
  const died = () => {
    if (closing || transport.closedIntentionally) return;
    const reason = withStderr(
      exitReason(transport.exitInfo),
      transport.stderrExcerpt(STDERR_LINES_IN_ERRORS),
    );
    if (reported !== undefined) {
      // reported at the exit; now that stderr is drained the reason may say more
      if (reason !== reported) connection.onDeathDetail?.(reason);
      return;
    }
    reported = reason;
    const onDeath = connection.onDeath;
    connection.onDeath = undefined;
    onDeath?.(reason);
  };
  // the exit moves the machine at once (calls then get -32000 with a phase), not the close of the streams later
  transport.onexit = died;
  client.onclose = died;
  if (transport.exitInfo) died();
  return connection;
}
