import type { VariableSource } from '@mcppipe/config';

/**
 * The variables a stdio child inherits from the supervisor's environment: exactly the MCP SDK's
 * `DEFAULT_INHERITED_ENV_VARS` (the set its `getDefaultEnvironment` copies). Kept here rather than imported because
 * this module must not load the SDK (it runs on the CLI's cold-start path before the SDK is loaded); a test pins it to
 * the SDK's list. SECURITY-REFERENCE §5 E8.
 */
export const INHERITED_ENV_VARS: readonly string[] =
  process.platform === 'win32'
    ? [
        'APPDATA',
        'COMSPEC',
        'HOMEDRIVE',
        'HOMEPATH',
        'LOCALAPPDATA',
        'PATH',
        'PATHEXT',
        'PROCESSOR_ARCHITECTURE',
        'PROGRAMDATA',
        'PROGRAMFILES',
        'PROGRAMFILES(X86)',
        'PROGRAMW6432',
        'SYSTEMDRIVE',
        'SYSTEMROOT',
        'TEMP',
        'USERNAME',
        'USERPROFILE',
        'WINDIR',
      ]
    : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];

/**
 * The allow-listed part of an environment, as the SDK's `getDefaultEnvironment` builds it: only
 * {@link INHERITED_ENV_VARS}, and never a value starting with `()` (an exported shell function). Nothing else of the
 * parent — `MCPPIPE_*`, `PUBLIC_URL`, `DATA_DIR`, API keys — reaches a child unless configured in its `env`
 * (SECURITY-REFERENCE §5 E8).
 *
 * @param source - the parent environment, e.g. `process.env`
 * @returns a new object with the inherited variables that are set
 */
export function inheritedEnvironment(source: VariableSource): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED_ENV_VARS) {
    const value = source[key];
    if (value === undefined || value.startsWith('()')) continue;
    env[key] = value;
  }
  return env;
}
