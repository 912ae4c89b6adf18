import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as api from './index.js';
import * as stdio from './stdio.js';

const srcDir = dirname(fileURLToPath(import.meta.url));

/** Every module the root entry pulls in through static imports (dynamic `import()` excluded). */
function staticClosure(entry: string): Map<string, string> {
  const seen = new Map<string, string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const text = readFileSync(file, 'utf8');
    seen.set(file, text);
    for (const m of text.matchAll(/^(?:import|export)\s(?!type\b)[^;]*?from\s+'(\.[^']+)'/gms)) {
      visit(join(dirname(file), m[1]!.replace(/\.js$/, '.ts')));
    }
  };
  visit(join(srcDir, entry));
  return seen;
}

describe('public surface', () => {
  it('root exports exactly these runtime names', () => {
    expect(Object.keys(api).sort()).toMatchInlineSnapshot(`
      [
        "DEFAULT_KILL_GRACE_MS",
        "DEFAULT_REQUEST_TIMEOUT_MS",
        "DEFAULT_START_TIMEOUT_MS",
        "DEFAULT_STDERR_TAIL_BYTES",
        "Supervisor",
        "describeError",
        "expandUpstreamSpec",
        "expandVariables",
        "isSessionExpired",
        "isTransportFailure",
        "passthroughSchema",
        "redactSpec",
      ]
    `);
  });

  it('./stdio exports exactly these runtime names', () => {
    expect(Object.keys(stdio).sort()).toMatchInlineSnapshot(`
      [
        "INHERITED_ENV_VARS",
        "MARK_CHILD",
        "MARK_ID",
        "MARK_PID",
        "MARK_START",
        "StdioProcessTransport",
        "TextTail",
        "createStdioTransport",
        "findMarked",
        "groupAlive",
        "groupMembers",
        "inheritedEnvironment",
        "listProcesses",
        "reapOrphans",
        "resolveCommand",
        "splitCommand",
        "terminateGroup",
      ]
    `);
  });

  it('the root entry imports no child_process (stdio is loaded lazily)', () => {
    const closure = staticClosure('index.ts');
    expect([...closure.keys()].filter((f) => f.endsWith('stdio.ts') || f.includes('/stdio/'))).toEqual([]);
    for (const [file, text] of closure) {
      expect(/^import\s(?!type\b)[^;]*from\s+'node:child_process'/m.test(text), file).toBe(false);
    }
    const built = join(srcDir, '..', 'dist', 'index.js');
    if (existsSync(built)) expect(readFileSync(built, 'utf8')).not.toMatch(/child_process/);
  });
});
