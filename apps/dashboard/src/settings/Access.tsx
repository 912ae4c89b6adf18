// Access and policies (T5, P1, P2): auth mode, IP allowlist, tool policies, limits and capture of values, edited
// here and saved with `PUT …/settings`; they apply to the tunnel's next request (`onSaved`: the header's tunnel list,
// which shows the auth mode, is read again at once).
import { useEffect, useState } from 'preact/hooks';
import { api, describeError } from '../api.js';
import { useLoad } from '../hooks.js';
import type { TunnelInfo, TunnelSettings } from '../types.js';

const lines = (text: string) =>
  text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);

interface Form {
  auth: TunnelSettings['auth'];
  allow: string;
  deny: string;
  allowTools: string;
  callsPerMinute: string;
  captureValues: boolean;
  hold: boolean;
}

const toForm = (s: TunnelSettings): Form => ({
  auth: s.auth,
  allow: s.allow.join('\n'),
  deny: s.policies.deny.join('\n'),
  allowTools: s.policies.allow.join('\n'),
  callsPerMinute: s.limits.callsPerMinute === null ? '' : String(s.limits.callsPerMinute),
  captureValues: s.capture.values,
  hold: s.holdChangedTools,
});

const fromForm = (f: Form): Partial<TunnelSettings> => ({
  auth: f.auth,
  allow: lines(f.allow),
  policies: { deny: lines(f.deny), allow: lines(f.allowTools) },
  limits: { callsPerMinute: f.callsPerMinute.trim() === '' ? null : Number(f.callsPerMinute) },
  capture: { values: f.captureValues },
  holdChangedTools: f.hold,
});

export function Access({ tunnel, onSaved }: { tunnel: TunnelInfo; onSaved: () => void }) {
  const { value, error } = useLoad(() => api.settings(tunnel.id), [tunnel.id]);
  const [form, setForm] = useState<Form | undefined>(undefined);
  const [note, setNote] = useState<{ ok: boolean; text: string } | undefined>(undefined);
  useEffect(() => setForm(value && toForm(value)), [value]);
  if (error) return <p class="error">{error}</p>;
  if (!form) return null;
  const set = (patch: Partial<Form>) => (setForm({ ...form, ...patch }), setNote(undefined));
  const text = (field: 'allow' | 'deny' | 'allowTools', label: string, hint: string) => (
    <label>
      {label}
      <textarea
        name={field}
        rows={3}
        class="mono"
        placeholder={hint}
        value={form[field]}
        onInput={(ev) => set({ [field]: ev.currentTarget.value })}
      />
    </label>
  );
  const save = async (ev: Event) => {
    ev.preventDefault();
    try {
      setForm(toForm(await api.saveSettings(tunnel.id, fromForm(form))));
      setNote({ ok: true, text: 'Saved: applies to the next request through the tunnel.' });
      onSaved();
    } catch (err) {
      setNote({ ok: false, text: describeError(err) });
    }
  };
  return (
    <form class="card" aria-label="Access and policies" onSubmit={(ev) => void save(ev)}>
      <h2>Access and policies</h2>
      <div class="cols">
        <label>
          Auth mode
          <select
            name="auth"
            value={form.auth}
            onChange={(ev) => set({ auth: ev.currentTarget.value as Form['auth'] })}
          >
            <option value="oauth">oauth (the relay's authorization server)</option>
            <option value="api-key">api-key (a key of this account)</option>
            <option value="none">none (anyone with the URL)</option>
          </select>
        </label>
        <label>
          Calls per minute
          <input
            name="callsPerMinute"
            type="number"
            min={1}
            placeholder="no limit"
            value={form.callsPerMinute}
            onInput={(ev) => set({ callsPerMinute: ev.currentTarget.value })}
          />
        </label>
      </div>
      <div class="cols">
        {text('allow', 'IP allowlist (CIDR, one a line)', 'e.g. 203.0.113.0/24')}
        {text('deny', 'Deny tools (globs)', 'e.g. filesystem__write_*')}
        {text('allowTools', 'Allow only tools (globs)', 'empty = all')}
      </div>
      <label class="check">
        <input
          type="checkbox"
          name="captureValues"
          checked={form.captureValues}
          onChange={(ev) => set({ captureValues: ev.currentTarget.checked })}
        />
        Capture argument values (otherwise redacted)
      </label>
      <label class="check">
        <input
          type="checkbox"
          name="hold"
          checked={form.hold}
          onChange={(ev) => set({ hold: ev.currentTarget.checked })}
        />
        Hold changed tools back until accepted
      </label>
      {note && <p class={note.ok ? 'ok-note' : 'error'}>{note.text}</p>}
      <button type="submit">Save</button>
    </form>
  );
}
