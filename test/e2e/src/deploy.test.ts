// The deployment files (DESIGN.md S3), checked without a container engine: YAML syntax, and the fields we rely
// on. What a real engine would add (image builds, Kubernetes schema admission) is checked only on paper
// (docs/scale.md "What was checked").
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, parseDocument } from 'yaml';

const root = join(import.meta.dirname, '..', '..', '..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');

function load(p: string): unknown {
  const doc = parseDocument(read(p), { merge: true, prettyErrors: true });
  expect(doc.errors.map(String), p).toEqual([]);
  return doc.toJS();
}

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('deployment files', () => {
  it('Dockerfile: multi-stage, non-root, /data volume, healthcheck on /livez', () => {
    const text = read('Dockerfile');
    expect(text.match(/^FROM .+ AS \w+$/gm)).toHaveLength(2);
    expect(text).toMatch(/^USER node$/m);
    expect(text).toMatch(/^VOLUME \["\/data"\]$/m);
    expect(text).toMatch(/^HEALTHCHECK .*\n.*\/livez/m);
    expect(text).toMatch(/--filter @mcppipe\/gateway deploy --prod/);
  });

  it('compose.yaml: two gateway nodes on one Redis, Caddy in front with a wildcard host', () => {
    const c = load('deploy/compose.yaml') as Obj;
    const services = c['services'] as Obj;
    expect(Object.keys(services).sort()).toEqual(['caddy', 'gateway-1', 'gateway-2', 'redis']);
    for (const n of ['gateway-1', 'gateway-2']) {
      expect(services[n].environment.MCPPIPE_REDIS_URL).toBe('redis://redis:6379');
      expect(services[n].depends_on.redis.condition).toBe('service_healthy');
      expect(services[n].volumes).toContain(`${n}-data:/data`);
    }
    expect(Object.keys(c['volumes'] as Obj)).toEqual(
      expect.arrayContaining(['gateway-1-data', 'gateway-2-data']),
    );
    expect(services['redis'].healthcheck.test).toEqual(['CMD', 'redis-cli', 'ping']);
    const caddy = read('deploy/Caddyfile');
    expect(caddy).toMatch(/^\{\$PUBLIC_HOST\}, \*\.\{\$PUBLIC_HOST\} \{$/m);
    expect(caddy).toMatch(/reverse_proxy gateway-1:3000 gateway-2:3000/);
    expect(caddy).toMatch(/health_uri \/readyz/);
    // an authorization in progress stays on one node (its login session and one-time code are per node)
    expect(caddy).toMatch(
      /@authorization path \/authorize \/authorize\/\* \/token\n\treverse_proxy @authorization [^{]*\{\n\t\tlb_policy ip_hash/,
    );
  });

  it('k8s: Deployment with 3 replicas, readiness on /readyz and liveness on /livez, Service, wildcard Ingress, Secret; Redis external', () => {
    const dir = 'deploy/k8s';
    const docs = readdirSync(join(root, dir))
      .filter((f) => f.endsWith('.yaml'))
      .flatMap((f) =>
        parseAllDocuments(read(join(dir, f))).map((d) => (expect(d.errors, f).toEqual([]), d.toJS() as Obj)),
      );
    const byKind = new Map(docs.map((d) => [d['kind'] as string, d]));
    expect([...byKind.keys()].sort()).toEqual([
      'ConfigMap',
      'Deployment',
      'Ingress',
      'Kustomization',
      'Secret',
      'Service',
    ]);
    const kustomized = byKind.get('Kustomization')!['resources'] as string[];
    expect(kustomized.sort()).toEqual(
      readdirSync(join(root, dir))
        .filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')
        .sort(),
    );

    const dep = byKind.get('Deployment')!;
    expect(dep['apiVersion']).toBe('apps/v1');
    expect(dep['spec'].replicas).toBe(3);
    expect(dep['spec'].selector.matchLabels).toEqual(dep['spec'].template.metadata.labels);
    const pod = dep['spec'].template.spec;
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    const [gw] = pod.containers as Obj[];
    expect(gw!['ports']).toEqual([{ name: 'http', containerPort: 3000 }]);
    expect(gw!['readinessProbe'].httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(gw!['livenessProbe'].httpGet).toEqual({ path: '/livez', port: 'http' });
    expect(gw!['envFrom']).toEqual([{ secretRef: { name: 'mcppipe-gateway' } }]);
    expect(gw!['volumeMounts']).toContainEqual({ name: 'data', mountPath: '/data' });

    const secret = byKind.get('Secret')!;
    expect(secret['metadata'].name).toBe('mcppipe-gateway');
    expect(Object.keys(secret['stringData']).sort()).toEqual([
      'MCPPIPE_ADMIN_PASSWORD_HASH',
      'MCPPIPE_NODE_SECRET',
      'MCPPIPE_REDIS_URL',
    ]);
    expect(docs.some((d) => JSON.stringify(d).includes('"image":"redis'))).toBe(false); // Redis is external

    const svc = byKind.get('Service')!;
    expect(svc['spec'].selector).toEqual(dep['spec'].selector.matchLabels);
    expect(svc['spec'].ports).toEqual([{ name: 'http', port: 80, targetPort: 'http' }]);

    const ing = byKind.get('Ingress')!;
    expect(ing['apiVersion']).toBe('networking.k8s.io/v1');
    const hosts = (ing['spec'].rules as Obj[]).map((r) => r['host']);
    expect(hosts).toEqual(['mcp.example.com', '*.mcp.example.com']);
    for (const r of ing['spec'].rules as Obj[])
      expect(r['http'].paths[0].backend.service).toEqual({
        name: svc['metadata'].name,
        port: { name: 'http' },
      });
  });
});
