import { compilePolicy } from '@mcppipe/policy';
import type { Policy, PolicyConfig, PolicyRule } from '@mcppipe/policy';

/**
 * The policy of `mcppipe up` (DESIGN.md P1–P3): the upstreams file's `[policy]` table, with `--deny-tool` and
 * `--allow-tool` in front of its rules. Denials come first (they always win); any `--allow-tool` makes the policy
 * an allowlist (`default = "deny"`, for tools only: prompts and resources are left to the file's rules).
 *
 * @param file - the `[policy]` table of the upstreams file, if any
 * @param flags - the globs given with `--deny-tool` and `--allow-tool`
 * @returns the compiled policy, or `undefined` when nothing is configured
 * @throws McpPipeError `MCPP_POLICY_INVALID` for a bad glob (the flags' globs are checked when they are parsed)
 */
export function upPolicy(
  file: PolicyConfig | undefined,
  flags: { denyTool: readonly string[]; allowTool: readonly string[] },
): Policy | undefined {
  const { denyTool, allowTool } = flags;
  if (file === undefined && denyTool.length === 0 && allowTool.length === 0) return undefined;
  const flagRules: PolicyRule[] = [
    ...denyTool.map((match): PolicyRule => ({ match, kind: 'tool', action: 'deny' })),
    ...allowTool.map((match): PolicyRule => ({ match, kind: 'tool', action: 'allow' })),
  ];
  if (allowTool.length > 0) flagRules.push({ match: '*', kind: 'tool', action: 'deny' });
  return compilePolicy({ ...file, rules: [...flagRules, ...(file?.rules ?? [])] });
}
