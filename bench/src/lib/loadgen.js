// The load generator: raw HTTP/1.1 on node:http with a keep-alive Agent, JSON-RPC bodies serialized once with
// only the id patched in, closed-loop workers (each sends its next call when the previous one answered).
// A call counts only when the response carries the expected result; everything is bounded by a call count and
// a deadline. It reports latency percentiles, calls/s, errors, its own CPU per call, and the CPU and RSS of the
// processes it is pointed at (read from /proc, split into the process itself and its descendants).
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { cpuDelta, sampleTree } from './proc.js';

export const LEGACY_VERSION = '2025-11-25';
export const MODERN_VERSION = '2026-07-28';
const ACCEPT = 'application/json, text/event-stream';
const ID_TOKEN = '"__BENCH_ID__"';
/** One HTTP exchange may take at most this long (a stuck target fails the call instead of hanging the run). */
const REQUEST_TIMEOUT_MS = 30_000;

/** The `_meta` envelope a 2026-07-28 client sends on every request (captured from the v2 SDK client in auto mode). */
export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'mcppipe-bench', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/**
 * Serializes a JSON-RPC request once; `body(id)` patches only the id in.
 *
 * @param {{ method: string, params?: object }} request
 */
export function template(request) {
  const text = JSON.stringify({ jsonrpc: '2.0', id: '__BENCH_ID__', ...request });
  const at = text.indexOf(ID_TOKEN);
  const prefix = text.slice(0, at);
  const suffix = text.slice(at + ID_TOKEN.length);
  return { body: (id) => prefix + id + suffix };
}

/** A keep-alive agent for one run: at most `sockets` connections. */
export function agentFor(sockets) {
  return new http.Agent({
    keepAlive: true,
    maxSockets: sockets,
    maxFreeSockets: sockets,
    scheduling: 'lifo',
  });
}

/**
 * One HTTP exchange on 127.0.0.1.
 *
 * @returns {Promise<{ status: number, headers: import('node:http').IncomingHttpHeaders, text: string, answeredAt: number }>}
 *   `answeredAt`: `performance.now()` when the last byte of the answer arrived (before anyone parses it)
 */
export function exchange(agent, port, method, path, headers, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ agent, host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, answeredAt: performance.now() }),
      );
      res.on('error', reject);
    });
    req.setTimeout(REQUEST_TIMEOUT_MS, () =>
      req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)),
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** JSON-RPC messages of a response: a JSON body (object or batch) or the `data:` lines of an SSE body. */
export function messagesOf(res) {
  const type = res.headers['content-type'] ?? '';
  if (res.text === '') return [];
  if (!type.includes('text/event-stream')) {
    const parsed = JSON.parse(res.text);
    return Array.isArray(parsed) ? parsed : [parsed];
  }
  const out = [];
  for (const line of res.text.split('\n')) if (line.startsWith('data: ')) out.push(JSON.parse(line.slice(6)));
  return out;
}

/** The result of the response to request `id`, or throws with what came instead. */
export function resultOf(res, id) {
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.text.slice(0, 200)}`);
  const m = messagesOf(res).find((x) => x.id === id);
  if (m === undefined) throw new Error(`no response with id ${id}: ${res.text.slice(0, 200)}`);
  if (m.error) throw new Error(`JSON-RPC error ${m.error.code}: ${m.error.message}`);
  return m.result;
}

/** DELETE carries no body, so no content-type (a JSON content-type with an empty body is a 400 in Fastify). */
const deleteHeaders = ({ 'content-type': _drop, ...rest }) => rest;
const jsonHeaders = (extra) => ({ 'content-type': 'application/json', accept: ACCEPT, ...extra });

/** A driver whose every call is one self-contained POST of the same request with fixed headers. */
function fixedPost({ port, path, headers, request, check }) {
  const t = template(request);
  return {
    async setup(agent) {
      return { agent };
    },
    async call(ctx, id) {
      const res = await exchange(ctx.agent, port, 'POST', path, headers, t.body(id));
      ctx.answeredAt = res.answeredAt;
      return check(resultOf(res, id));
    },
    async teardown() {},
  };
}

/**
 * Protocol drivers: how one worker talks to a target. `setup` runs before the measured window, `call` is one
 * measured call (true when the answer is right), `teardown` runs after it.
 */
export const drivers = {
  /** 2025 era with a session: initialize + notifications/initialized per worker, DELETE at the end. */
  legacySession({ port, path = '/mcp', request, check, headers: extra = {} }) {
    const t = template(request);
    return {
      async setup(agent) {
        const init = await exchange(agent, port, 'POST', path, jsonHeaders(extra), initializeBody(0));
        const sid = init.headers['mcp-session-id'];
        resultOf(init, 0);
        if (typeof sid !== 'string')
          throw new Error(`initialize returned no Mcp-Session-Id (HTTP ${init.status})`);
        const headers = jsonHeaders({
          ...extra,
          'mcp-session-id': sid,
          'mcp-protocol-version': LEGACY_VERSION,
        });
        const note = await exchange(agent, port, 'POST', path, headers, INITIALIZED);
        if (note.status !== 202) throw new Error(`notifications/initialized answered HTTP ${note.status}`);
        return { agent, headers, sid };
      },
      async call(ctx, id) {
        const res = await exchange(ctx.agent, port, 'POST', path, ctx.headers, t.body(id));
        ctx.answeredAt = res.answeredAt;
        return check(resultOf(res, id));
      },
      async teardown(ctx) {
        await exchange(ctx.agent, port, 'DELETE', path, deleteHeaders(ctx.headers), undefined).catch(
          () => undefined,
        );
      },
    };
  },
  /** 2026-07-28: every request self-contained (`Mcp-Method`, `Mcp-Name`, the `_meta` envelope), no session. */
  modern({ port, path = '/mcp', request, check, headers: extra = {} }) {
    const params = { ...(request.params ?? {}), _meta: MODERN_META };
    const name = request.params?.name;
    const headers = jsonHeaders({
      ...extra,
      'mcp-protocol-version': MODERN_VERSION,
      'mcp-method': request.method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
    });
    return fixedPost({ port, path, headers, request: { method: request.method, params }, check });
  },
  /** 2025 era without a session (a stateless server): the request alone, protocol version header set. */
  legacyStateless({ port, path = '/mcp', request, check, headers: extra = {} }) {
    const headers = jsonHeaders({ ...extra, 'mcp-protocol-version': LEGACY_VERSION });
    return fixedPost({ port, path, headers, request, check });
  },
  /** Any JSON POST route (the Fastify floor): same body, JSON answer. */
  plain({ port, path, request, check, headers: extra = {} }) {
    return fixedPost({
      port,
      path,
      headers: { 'content-type': 'application/json', ...extra },
      request,
      check,
    });
  },
  /**
   * Requests that must be refused with a given status (R6: 401 without a token, or with `headersOf(id)` adding a
   * different forged token to every request).
   */
  refused({ port, path, status, request, headers: extra = {}, headersOf }) {
    const t = template(request);
    const headers = jsonHeaders({ ...extra, 'mcp-protocol-version': LEGACY_VERSION });
    return {
      async setup(agent) {
        return { agent };
      },
      async call(ctx, id) {
        const sent = headersOf ? { ...headers, ...headersOf(id) } : headers;
        const res = await exchange(ctx.agent, port, 'POST', path, sent, t.body(id));
        ctx.answeredAt = res.answeredAt;
        if (res.status !== status)
          throw new Error(`expected HTTP ${status}, got ${res.status}: ${res.text.slice(0, 120)}`);
        return true;
      },
      async teardown() {},
    };
  },
  /** R4: one whole 2025 session per call: initialize, notifications/initialized, DELETE. */
  sessionCycle({ port, path = '/mcp', headers: extra = {} }) {
    return {
      async setup(agent) {
        return { agent };
      },
      async call(ctx, id) {
        const init = await exchange(ctx.agent, port, 'POST', path, jsonHeaders(extra), initializeBody(id));
        resultOf(init, id);
        const sid = init.headers['mcp-session-id'];
        if (typeof sid !== 'string') throw new Error('initialize returned no Mcp-Session-Id');
        const headers = jsonHeaders({
          ...extra,
          'mcp-session-id': sid,
          'mcp-protocol-version': LEGACY_VERSION,
        });
        const note = await exchange(ctx.agent, port, 'POST', path, headers, INITIALIZED);
        if (note.status !== 202) throw new Error(`notifications/initialized answered HTTP ${note.status}`);
        const del = await exchange(ctx.agent, port, 'DELETE', path, deleteHeaders(headers), undefined);
        if (del.status !== 200) throw new Error(`DELETE answered HTTP ${del.status}`);
        return true;
      },
      async teardown() {},
    };
  },
};

const INITIALIZED = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
const initTemplate = template({
  method: 'initialize',
  params: {
    protocolVersion: LEGACY_VERSION,
    capabilities: {},
    clientInfo: { name: 'mcppipe-bench', version: '1.0.0' },
  },
});
const initializeBody = (id) => initTemplate.body(id);

/** An echo check: the first content item is the text `Echo: <message>`. */
export const echoCheck = (message) => {
  const expected = `Echo: ${message}`;
  return (result) => {
    if (result?.content?.[0]?.text !== expected)
      throw new Error(`unexpected result ${JSON.stringify(result).slice(0, 120)}`);
    return true;
  };
};

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * Runs closed-loop workers against one target until `maxCalls` calls were made or `maxMs` passed.
 *
 * @param {object} o
 * @param {ReturnType<typeof drivers.modern>} o.driver
 * @param {number} o.concurrency workers (and sockets)
 * @param {number} o.maxCalls bound on calls
 * @param {number} o.maxMs bound on the measured window
 * @param {Record<string, number>} [o.watch] processes to sample: label → pid (self and descendants apart)
 * @param {number} [o.firstId] first JSON-RPC id (ids are unique across one run)
 * @param {number} [o.perSecond] offered load: call n starts no earlier than n / perSecond s after the start
 *   (default: closed loop, each worker's next call as soon as its last one is answered)
 */
export async function runLoad({ driver, concurrency, maxCalls, maxMs, watch = {}, firstId = 1, perSecond }) {
  const agent = agentFor(concurrency);
  try {
    const contexts = await Promise.all(Array.from({ length: concurrency }, () => driver.setup(agent)));
    // latency: request sent → last byte of the answer (the driver records `answeredAt`); `checked` also counts
    // the generator parsing and checking the answer, which is the client's cost, not the target's
    const latencies = new Float64Array(maxCalls);
    const checked = new Float64Array(maxCalls);
    let issued = 0;
    let done = 0;
    let ok = 0;
    let errors = 0;
    let firstError;
    const before = Object.fromEntries(Object.entries(watch).map(([k, pid]) => [k, sampleTree(pid)]));
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const deadline = t0 + maxMs;
    const worker = async (ctx) => {
      while (issued < maxCalls && performance.now() < deadline) {
        const n = issued++;
        const id = firstId + n;
        if (perSecond !== undefined) {
          const wait = t0 + (n * 1000) / perSecond - performance.now();
          if (wait > 1) await new Promise((r) => setTimeout(r, wait));
          if (performance.now() >= deadline) break;
        }
        ctx.answeredAt = undefined;
        const start = performance.now();
        try {
          if (await driver.call(ctx, id)) ok++;
          else errors++;
        } catch (err) {
          errors++;
          firstError ??= err instanceof Error ? err.message : String(err);
        }
        const end = performance.now();
        checked[done] = end - start;
        latencies[done++] = (ctx.answeredAt ?? end) - start;
      }
    };
    await Promise.all(contexts.map(worker));
    const elapsed = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const targets = {};
    for (const [label, pid] of Object.entries(watch)) {
      const after = sampleTree(pid);
      const d = cpuDelta(before[label], after);
      targets[label] = {
        cpuPerCallMs: ok > 0 ? d.self / ok : NaN,
        childrenCpuPerCallMs: ok > 0 ? d.children / ok : NaN,
        cpuMs: d.self,
        childrenCpuMs: d.children,
        rssMB: after.rss / 2 ** 20,
      };
    }
    await Promise.all(contexts.map((c) => driver.teardown(c).catch(() => undefined)));
    const sorted = latencies.subarray(0, done).sort();
    const sortedChecked = checked.subarray(0, done).sort();
    return {
      concurrency,
      calls: done,
      ok,
      errors,
      ...(firstError ? { firstError } : {}),
      durationMs: elapsed,
      perSecond: (ok * 1000) / elapsed,
      p50: percentile(sorted, 50),
      p90: percentile(sorted, 90),
      p99: percentile(sorted, 99),
      max: sorted.length ? sorted[sorted.length - 1] : NaN,
      checkedP50: percentile(sortedChecked, 50),
      generatorCpuPerCallMs: ok > 0 ? (cpu.user + cpu.system) / 1000 / ok : NaN,
      targets,
    };
  } finally {
    agent.destroy();
  }
}
