import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, readdir, stat, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KEY_FILE, loadOrCreateSigningKey } from './keys.js';
import { captureLogger } from '@mcppipe/test-utils';

const dir = (): Promise<string> => mkdtemp(join(tmpdir(), 'mcppipe-key-'));

describe('F6/F5 the signing key file', () => {
  it('is created once with mode 0600, even by simultaneous boots', async () => {
    const d = await dir();
    const keys = await Promise.all(
      Array.from({ length: 8 }, () => loadOrCreateSigningKey(d, captureLogger())),
    );
    expect(new Set(keys.map((k) => k.kid)).size).toBe(1);
    expect((await stat(join(d, KEY_FILE))).mode & 0o777).toBe(0o600);
    expect(await readdir(d)).toEqual([KEY_FILE]);
    expect(await readFile(join(d, KEY_FILE), 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    const again = await loadOrCreateSigningKey(d, captureLogger());
    expect(again.kid).toBe(keys[0]!.kid);
    expect(again.publicJwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', kid: again.kid, alg: 'EdDSA' });
    expect(again.publicJwk.d).toBeUndefined();
  });

  it('two gateway processes booting at once on an empty data dir end with one key', async () => {
    const d = await dir();
    const entry = new URL('../dist/index.js', import.meta.url).href;
    const script = `
      const { createOAuthProvider } = await import(${JSON.stringify(entry)});
      const p = await createOAuthProvider({ dataDir: process.argv[1], publicUrl: 'https://gw.example', resources: () => [], adminPassword: 'x' });
      process.stdout.write(p.jwks().keys[0].kid);
      await p.close();`;
    const run = () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', script, d], {
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let out = '';
        child.stdout.on('data', (c: Buffer) => (out += c.toString()));
        child.on('error', reject);
        child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
      });
    const kids = await Promise.all([run(), run(), run()]);
    expect(new Set(kids).size).toBe(1);
    expect(kids[0]).toMatch(/^[\w-]{43}$/);
    expect((await readdir(d)).sort()).toEqual([KEY_FILE]);
  }, 30_000);

  it('fails closed on a corrupt or foreign key and leaves the file alone', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    for (const content of [
      'garbage',
      '',
      rsa,
      '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n',
    ]) {
      const d = await dir();
      await writeFile(join(d, KEY_FILE), content, { mode: 0o600 });
      await expect(loadOrCreateSigningKey(d, captureLogger())).rejects.toMatchObject({
        code: 'MCPP_OAUTH_KEY_CORRUPT',
      });
      expect(await readFile(join(d, KEY_FILE), 'utf8')).toBe(content);
    }
  }, 20_000);

  it('says which file is corrupt and that deleting it generates a new key, signing out every token', async () => {
    const d = await dir();
    await writeFile(join(d, KEY_FILE), 'garbage', { mode: 0o600 });
    await expect(loadOrCreateSigningKey(d, captureLogger())).rejects.toMatchObject({
      code: 'MCPP_OAUTH_KEY_CORRUPT',
      message:
        `${join(d, KEY_FILE)} is corrupt: it is not a PEM private key. The gateway refuses to start rather than ` +
        'mint a new key silently. Restore it from a backup, or delete it: the gateway then generates a new key, ' +
        'which signs out every existing token (each client must authorize again).',
    });
  });

  it('tightens a group- or world-readable key to 0600 and says so', async () => {
    const d = await dir();
    await loadOrCreateSigningKey(d, captureLogger());
    await chmod(join(d, KEY_FILE), 0o644);
    const logger = captureLogger();
    await loadOrCreateSigningKey(d, logger);
    expect((await stat(join(d, KEY_FILE))).mode & 0o777).toBe(0o600);
    expect(logger.lines.join('\n')).toContain('tightened to 0600');
  });
});
