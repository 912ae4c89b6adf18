// A folding JSON view: objects and arrays open to `depth`, each node folds with a click (native <details>).
import type { ComponentChildren } from 'preact';

function Leaf({ value }: { value: unknown }) {
  if (typeof value === 'string') return <span class="j-str">{JSON.stringify(value)}</span>;
  if (typeof value === 'number' || typeof value === 'boolean')
    return <span class="j-num">{String(value)}</span>;
  return <span class="j-null">null</span>;
}

function Node({ name, value, depth }: { name: ComponentChildren; value: unknown; depth: number }) {
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
    <details open={depth > 0} class="j-node">
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
          />
        ))}
      </div>
    </details>
  );
}

/** The folding view of one JSON value; `depth` levels start open (default 3). */
export function Json({ value, depth = 3 }: { value: unknown; depth?: number }) {
  if (value === undefined) return <p class="muted">(not recorded)</p>;
  return (
    <div class="json mono">
      <Node name={null} value={value} depth={depth} />
    </div>
  );
}
