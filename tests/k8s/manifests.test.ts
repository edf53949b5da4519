/**
 * Offline validation of the Kubernetes deployment in k8s/ (docs/operations.md): each kustomization
 * is built with `kubectl kustomize` (no cluster), every object is validated against the Kubernetes
 * schema (kubernetes-models) and for unknown fields, and the checks in checks.ts compare the
 * manifests with the code (config variables, ports, probe paths) and with each other (selectors,
 * hosts, secrets). The last test breaks a copy of k8s/ in several ways and expects each caught.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import type { Context } from './checks.ts';
import { checkAll } from './checks.ts';
import type { K8sObject } from './kustomize.ts';
import { build, kubectl, label, schemaProblems } from './kustomize.ts';
import { unknownFields } from './unknown-fields.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const K8S = join(ROOT, 'k8s');

/** The variable names of packages/config's schema: the `NAME: { type: ... }` lines of `properties`. */
function configVars(): Set<string> {
  const source = readFileSync(join(ROOT, 'packages/config/src/index.ts'), 'utf8');
  const properties = /const schema[^=]*=\s*\{[\s\S]*?properties:\s*\{([\s\S]*?)\n\s*\},\n\s*required/.exec(source)?.[1] ?? '';
  return new Set([...properties.matchAll(/^\s*([A-Z][A-Z0-9_]*):\s*\{/gm)].map((m) => m[1] ?? ''));
}

/** Keys of secret.example.yaml's stringData, the optional ones (commented out) included. */
function secretKeys(): Set<string> {
  const text = readFileSync(join(K8S, 'base/secret.example.yaml'), 'utf8');
  const keys = Object.keys((parse(text) as { stringData?: Record<string, string> }).stringData ?? {});
  const optional = [...text.matchAll(/^ {2}# ([A-Za-z][A-Za-z0-9_-]*): /gm)].map((m) => m[1] ?? '');
  return new Set([...keys, ...optional]);
}

/** Every problem the schema, the unknown-field check and our own checks find. */
function problemsOf(objects: K8sObject[], ctx: Context): string[] {
  return [...objects.flatMap((o) => [...schemaProblems(o), ...unknownFields(o, label(o))]), ...checkAll(objects, ctx)];
}

const CONFIG_VARS = configVars();
const SECRET_KEYS = secretKeys();
const TARGETS = [
  { dir: 'base', namespace: null },
  { dir: 'overlays/dev', namespace: 'svc-dev' },
  { dir: 'overlays/production', namespace: 'svc' },
];

// Without kubectl this suite fails (every build below too), naming what to install: never a skip.
test('kubectl with kustomize v5 is installed (client only, no cluster)', () => {
  assert.ok(kubectl());
});

test('the config schema regex finds the variables the deployment relies on', () => {
  for (const v of ['NODE_ENV', 'AUTH_URL', 'BASE_URL', 'PORT', 'REDIS_URL', 'KEY_PEPPER', 'COOKIE_KEYS', 'TRUST_PROXY'])
    assert.ok(CONFIG_VARS.has(v), `${v} not found in packages/config/src/index.ts`);
});

for (const target of TARGETS) {
  describe(`k8s/${target.dir}`, () => {
    const ctx: Context = { configVars: CONFIG_VARS, secretKeys: SECRET_KEYS, namespace: target.namespace };
    let objects: K8sObject[] = [];
    // A build error fails every test of the suite here, rather than letting them pass on nothing.
    before(() => {
      objects = build(join(K8S, target.dir));
    });

    test('builds with kubectl kustomize into the expected kinds', () => {
      const kinds = new Set(objects.map((o) => o.kind));
      for (const kind of ['Deployment', 'Service', 'ConfigMap', 'PodDisruptionBudget', 'HorizontalPodAutoscaler', 'NetworkPolicy', 'Ingress'])
        assert.ok(kinds.has(kind), `no ${kind}`);
    });

    test('every object validates against the Kubernetes schema (kubernetes-models)', () => {
      assert.deepEqual(objects.flatMap(schemaProblems), []);
    });

    test('no object has a field its schema does not declare', () => {
      assert.deepEqual(
        objects.flatMap((o) => unknownFields(o, label(o))),
        [],
      );
    });

    test('probes, resources, security, secrets, env names, selectors, ports and hosts agree', () => {
      assert.deepEqual(checkAll(objects, ctx), []);
    });
  });
}

describe('Redis', () => {
  test('dev runs the optional k8s/redis component; production expects an external Redis', () => {
    const redisOf = (dir: string) => build(join(K8S, dir)).filter((o) => o.metadata.name === 'redis').map((o) => o.kind).sort();
    assert.deepEqual(redisOf('overlays/dev'), ['NetworkPolicy', 'Service', 'StatefulSet']);
    assert.deepEqual(redisOf('overlays/production'), []);
  });
});

test('no Secret is committed: secret.example.yaml is the only one, and no kustomization lists it', () => {
  const files = (readdirSync(K8S, { recursive: true }) as string[]).filter((f) => /\.ya?ml$/.test(f)).map((f) => join(K8S, f));
  const withSecret = files.filter((f) => /^kind:\s*Secret\s*$/m.test(readFileSync(f, 'utf8')));
  assert.deepEqual(withSecret.map((f) => relative(K8S, f)), ['base/secret.example.yaml']);
  for (const f of files.filter((x) => /kustomization\.ya?ml$/.test(x))) {
    const k = parse(readFileSync(f, 'utf8')) as { resources?: string[]; components?: string[] };
    const listed = [...(k.resources ?? []), ...(k.components ?? [])];
    assert.ok(!listed.some((r) => r.includes('secret.example')), `${relative(K8S, f)} lists secret.example.yaml`);
  }
});

describe('a broken manifest fails the checks', () => {
  // Made in a hook, not when the suite is declared: a run filtered by name runs no hook here.
  let copy = '';
  before(() => {
    copy = mkdtempSync(join(tmpdir(), 'svc-k8s-'));
  });
  after(() => rmSync(copy, { recursive: true, force: true }));
  const ctx: Context = { configVars: CONFIG_VARS, secretKeys: SECRET_KEYS, namespace: 'svc' };

  const BREAKS: { name: string; file: string; from: string | RegExp; to: string; expect: RegExp }[] = [
    { name: 'misspelled field', file: 'base/mcp-gateway.yaml', from: 'readinessProbe:', to: 'readinesProbe:', expect: /readinesProbe: unknown field/ },
    { name: 'wrong type', file: 'base/auth-service.yaml', from: 'terminationGracePeriodSeconds: 30', to: 'terminationGracePeriodSeconds: thirty', expect: /terminationGracePeriodSeconds: must be integer/ },
    { name: 'literal secret', file: 'base/mcp-gateway.yaml', from: /- name: KEY_PEPPER\n\s+valueFrom:\n\s+secretKeyRef:\n\s+name: svc-secrets\n\s+key: KEY_PEPPER/, to: '- name: KEY_PEPPER\n              value: not-a-secret-anymore-but-long-enough', expect: /KEY_PEPPER does not come from a Secret/ },
    { name: 'unknown variable', file: 'base/kustomization.yaml', from: '- LOG_LEVEL=info', to: '- LOG_LEVEL=info\n      - LOGLEVEL=debug', expect: /LOGLEVEL is not a variable of packages\/config/ },
    { name: 'selector mismatch', file: 'base/mcp-gateway.yaml', from: /spec:\n {2}type: ClusterIP\n {2}selector:\n {4}app.kubernetes.io\/name: mcp-gateway/, to: 'spec:\n  type: ClusterIP\n  selector:\n    app.kubernetes.io/name: mcp-gw', expect: /Service\/mcp-gateway: selector matches 0 workloads/ },
    { name: 'probe on a closed port', file: 'base/auth-service.yaml', from: /path: \/readyz\n(\s+)port: http/, to: 'path: /readyz\n$1port: 4001', expect: /readinessProbe port 4001 is not a container port/ },
    { name: 'host drift', file: 'overlays/production/kustomization.yaml', from: 'BASE_URL=https://api.svc.example.com', to: 'BASE_URL=https://mcp.svc.example.com', expect: /host api\.svc\.example\.com is neither/ },
  ];

  for (const b of BREAKS) {
    test(b.name, () => {
      rmSync(join(copy, 'k8s'), { recursive: true, force: true });
      cpSync(K8S, join(copy, 'k8s'), { recursive: true });
      const file = join(copy, 'k8s', b.file);
      const text = readFileSync(file, 'utf8');
      const broken = text.replace(b.from, b.to);
      assert.notEqual(broken, text, `the break "${b.name}" no longer applies to ${b.file}`);
      writeFileSync(file, broken);
      const problems = problemsOf(build(join(copy, 'k8s/overlays/production')), ctx);
      assert.ok(
        problems.some((p) => b.expect.test(p)),
        `expected ${b.expect} among:\n${problems.join('\n')}`,
      );
    });
  }
});
