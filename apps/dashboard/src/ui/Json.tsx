// A folding JSON view: objects and arrays open to `depth`, and UNFOLD levels of the subtree at an `unfold` key path
// (a tool call's `params.arguments`, its `result.content`); each node folds with a click (native <details>).
import type { ComponentChildren } from 'preact';

function Leaf({ value }: { value: unknown }) {
  if (typeof value === 'string') return <span class="j-str">{JSON.stringify(value)}</span>;
  if (typeof value === 'number' || typeof value === 'boolean')
    return <span class="j-num">{String(value)}</span>;
  return <span class="j-null">null</span>;
}

/** How many levels of the subtree at an `unfold` path start open. */
const UNFOLD = 4;

interface NodeProps {
  name: ComponentChildren;
  value: unknown;
  depth: number;
  /** The rest of the key path to unfold below this node; `[]`: this node is its end. */
  unfold: readonly string[] | undefined;
}

function Node({ name, value, depth: given, unfold }: NodeProps) {
  const depth = unfold?.length === 0 ? Math.max(given, UNFOLD) : given;
  if (value === null || typeof value !== 'object') {
    return (
      <div class="j-row">
        {name}
        <Leaf value={value} />
      </div>
    );
  }
  const entries = Array.isArray(value)
    ? value.map((v, i) => [String(i), v] as const)
    : Object.entries(value as Record<string, unknown>);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) {
    return (
      <div class="j-row">
        {name}
        {open + close}
      </div>
    );
  }
  return (
    <details open={depth > 0 || (unfold?.length ?? 0) > 0} class="j-node">
      <summary>
        {name}
        {open}
        <span class="muted small"> {entries.length} </span>
        {close}
      </summary>
      <div class="j-children">
        {entries.map(([k, v]) => (
          <Node
            key={k}
            name={<span class="j-key">{Array.isArray(value) ? `${k}: ` : `"${k}": `}</span>}
            value={v}
            depth={depth - 1}
            unfold={unfold?.[0] === k ? unfold.slice(1) : undefined}
          />
        ))}
      </div>
    </details>
  );
}

/**
 * The folding view of one JSON value; `depth` levels start open (default 3), and {@link UNFOLD} levels of the
 * subtree at the key path `unfold` (e.g. `['result', 'content']`).
 */
export function Json({ value, depth = 3, unfold }: { value: unknown; depth?: number; unfold?: string[] }) {
  if (value === undefined) return <p class="muted">(not recorded)</p>;
  return (
    <div class="json mono">
      <Node name={null} value={value} depth={depth} unfold={unfold} />
    </div>
  );
}
