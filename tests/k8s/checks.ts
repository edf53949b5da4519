/**
 * Checks of our own on a built kustomization, beyond the schema: what a reviewer of this
 * deployment would otherwise have to verify by eye. Each returns the problems found (empty: fine),
 * so the same checks can be pointed at a deliberately broken copy and seen to fail.
 */
import type { IDeployment, IStatefulSet } from 'kubernetes-models/apps/v1';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import type { IIngress, INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1';
import type { IConfigMap, IContainer, IPodSpec, IProbe, IService } from 'kubernetes-models/v1';
import type { K8sObject } from './kustomize.ts';
import { label } from './kustomize.ts';

/** What the checks compare the manifests with. */
export interface Context {
  /** Variable names packages/config/src/index.ts knows. */
  configVars: Set<string>;
  /** Keys shown in k8s/base/secret.example.yaml. */
  secretKeys: Set<string>;
  /** The namespace every namespaced object must be in; null: none may carry one (the base). */
  namespace: string | null;
}

/** The two deployables; the env, secret and probe-path checks apply to their containers. */
const SERVICES = ['auth-service', 'mcp-gateway'] as const;
/** Variables loadConfig() refuses to default in production: they must come from the Secret. */
const SECRET_VARS = ['KEY_PEPPER', 'COOKIE_KEYS', 'REDIS_URL', 'EMBEDDINGS_API_KEY'];
/** The process drains for at most 10 s after SIGTERM (services/mcp-gateway/src/main.ts). */
const DRAIN_SECONDS = 10;

type Workload = K8sObject & (IDeployment | IStatefulSet);

const of = <T>(objects: K8sObject[], kind: string) => objects.filter((o) => o.kind === kind) as unknown as (K8sObject & T)[];
const workloads = (objects: K8sObject[]) => objects.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet') as Workload[];
const podSpec = (w: Workload): IPodSpec | undefined => w.spec?.template.spec;
const matches = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  !!selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels?.[k] === v);
const podLabels = (w: Workload) => w.spec?.template.metadata?.labels;

/** Resolves a probe's or a Service's port (number or name) to a container port number. */
function containerPort(c: IContainer, port: number | string | undefined): number | undefined {
  const found = (c.ports ?? []).find((p) => (typeof port === 'number' ? p.containerPort === port : p.name === port));
  return found?.containerPort;
}

function probePort(p: IProbe | undefined): number | string | undefined {
  return p?.httpGet?.port ?? p?.tcpSocket?.port ?? p?.grpc?.port;
}

/** Probes, resources, security context, a writable /tmp, and probe ports that exist. */
function checkContainers(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  for (const w of workloads(objects)) {
    const spec = podSpec(w);
    if (!spec) {
      problems.push(`${label(w)}: no pod template`);
      continue;
    }
    const sc = spec.securityContext;
    if (sc?.runAsNonRoot !== true) problems.push(`${label(w)}: pod securityContext.runAsNonRoot is not true`);
    if (sc?.seccompProfile?.type !== 'RuntimeDefault') problems.push(`${label(w)}: pod seccompProfile is not RuntimeDefault`);
    const emptyDirs = new Set((spec.volumes ?? []).filter((v) => v.emptyDir).map((v) => v.name));
    for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
      const where = `${label(w)} container ${c.name}`;
      for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe'] as const) {
        const p = c[probe];
        if (!p) problems.push(`${where}: no ${probe}`);
        else if (p.httpGet || p.tcpSocket || p.grpc) {
          if (containerPort(c, probePort(p)) === undefined) problems.push(`${where}: ${probe} port ${String(probePort(p))} is not a container port`);
        } else if (!p.exec) problems.push(`${where}: ${probe} has no handler`);
      }
      for (const r of ['requests', 'limits'] as const)
        for (const res of ['cpu', 'memory'])
          if (!c.resources?.[r]?.[res]) problems.push(`${where}: no resources.${r}.${res}`);
      const csc = c.securityContext;
      if (csc?.readOnlyRootFilesystem !== true) problems.push(`${where}: readOnlyRootFilesystem is not true`);
      if (csc?.allowPrivilegeEscalation !== false) problems.push(`${where}: allowPrivilegeEscalation is not false`);
      if (csc?.runAsNonRoot !== true && sc?.runAsNonRoot !== true) problems.push(`${where}: may run as root`);
      if (!(csc?.capabilities?.drop ?? []).includes('ALL')) problems.push(`${where}: capabilities are not dropped (ALL)`);
      const tmp = (c.volumeMounts ?? []).find((m) => m.mountPath === '/tmp');
      if (!tmp || !emptyDirs.has(tmp.name)) problems.push(`${where}: /tmp is not a writable emptyDir`);
    }
  }
  return problems;
}

/** The two services: health paths, drain timing, spread, scrape annotations, replicas. */
function checkServices(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  const deployments = of<IDeployment>(objects, 'Deployment');
  const hpas = of<IHorizontalPodAutoscaler>(objects, 'HorizontalPodAutoscaler');
  for (const name of SERVICES) {
    const d = deployments.find((x) => x.metadata.name === name);
    if (!d?.spec?.template.spec) {
      problems.push(`Deployment/${name}: missing`);
      continue;
    }
    const spec = d.spec.template.spec;
    const c = spec.containers.find((x) => x.name === name);
    if (!c) {
      problems.push(`Deployment/${name}: no container named ${name}`);
      continue;
    }
    if (c.readinessProbe?.httpGet?.path !== '/readyz') problems.push(`Deployment/${name}: readiness probe is not GET /readyz`);
    if (c.livenessProbe?.httpGet?.path !== '/healthz') problems.push(`Deployment/${name}: liveness probe is not GET /healthz`);
    const http = containerPort(c, 'http');
    const portEnv = c.env?.find((e) => e.name === 'PORT')?.value;
    if (http === undefined || portEnv !== String(http)) problems.push(`Deployment/${name}: PORT (${portEnv}) is not the http container port (${http})`);
    const ann = d.spec.template.metadata?.annotations ?? {};
    if (ann['prometheus.io/scrape'] !== 'true' || ann['prometheus.io/path'] !== '/metrics' || ann['prometheus.io/port'] !== String(http))
      problems.push(`Deployment/${name}: prometheus.io annotations do not point at /metrics on port ${http}`);
    const sleep = c.lifecycle?.preStop?.exec?.command?.at(-1) ?? c.lifecycle?.preStop?.sleep?.seconds;
    const grace = spec.terminationGracePeriodSeconds ?? 30;
    if (sleep === undefined) problems.push(`Deployment/${name}: no preStop sleep`);
    else if (Number(sleep) + DRAIN_SECONDS >= grace) problems.push(`Deployment/${name}: preStop ${sleep}s + drain ${DRAIN_SECONDS}s does not fit in terminationGracePeriodSeconds ${grace}`);
    const spread = spec.topologySpreadConstraints ?? [];
    if (spread.length === 0 || !spread.every((t) => matches(t.labelSelector?.matchLabels, d.spec?.template.metadata?.labels)))
      problems.push(`Deployment/${name}: no topology spread over its own pods`);
    const hpa = hpas.find((h) => h.spec?.scaleTargetRef.kind === 'Deployment' && h.spec.scaleTargetRef.name === name);
    if (hpa && d.spec.replicas !== undefined) problems.push(`Deployment/${name}: sets replicas although HorizontalPodAutoscaler/${hpa.metadata.name} owns them`);
    const min = hpa ? (hpa.spec?.minReplicas ?? 1) : (d.spec.replicas ?? 1);
    if (min < 2) problems.push(`Deployment/${name}: fewer than 2 replicas (${min})`);
  }
  for (const h of hpas)
    if (!deployments.some((d) => d.metadata.name === h.spec?.scaleTargetRef.name)) problems.push(`${label(h)}: scales a Deployment that does not exist`);
  return problems;
}

/** Env names known to packages/config; secrets from the Secret only; no Secret objects at all. */
function checkConfiguration(objects: K8sObject[], ctx: Context): string[] {
  const problems: string[] = [];
  const configMaps = of<IConfigMap>(objects, 'ConfigMap');
  for (const cm of configMaps)
    for (const key of SECRET_VARS) if (cm.data?.[key] !== undefined) problems.push(`${label(cm)}: holds ${key}, a secret`);
  for (const s of objects.filter((o) => o.kind === 'Secret')) problems.push(`${label(s)}: a Secret is committed (create it in the cluster instead)`);
  for (const d of of<IDeployment>(objects, 'Deployment').filter((x) => (SERVICES as readonly string[]).includes(x.metadata.name))) {
    for (const c of d.spec?.template.spec?.containers ?? []) {
      const where = `${label(d)} container ${c.name}`;
      const names: string[] = [];
      for (const from of c.envFrom ?? []) {
        const cm = configMaps.find((x) => x.metadata.name === from.configMapRef?.name);
        if (from.configMapRef && !cm) problems.push(`${where}: envFrom ConfigMap ${from.configMapRef.name} does not exist`);
        if (from.secretRef) problems.push(`${where}: envFrom a whole Secret; reference each key instead`);
        names.push(...Object.keys(cm?.data ?? {}));
      }
      for (const e of c.env ?? []) {
        names.push(e.name);
        const ref = e.valueFrom?.secretKeyRef;
        if (ref && !ctx.secretKeys.has(ref.key)) problems.push(`${where}: ${e.name} reads Secret key ${ref.key}, not shown in secret.example.yaml`);
        if (ref && ref.name !== 'svc-secrets') problems.push(`${where}: ${e.name} reads Secret ${ref.name}, not svc-secrets`);
      }
      for (const n of names) if (!ctx.configVars.has(n)) problems.push(`${where}: ${n} is not a variable of packages/config`);
      for (const key of ['KEY_PEPPER', 'COOKIE_KEYS', 'REDIS_URL']) {
        const e = c.env?.find((x) => x.name === key);
        if (!e?.valueFrom?.secretKeyRef || e.valueFrom.secretKeyRef.optional) problems.push(`${where}: ${key} does not come from a Secret`);
      }
      for (const e of c.env ?? [])
        if (SECRET_VARS.includes(e.name) && !e.valueFrom?.secretKeyRef) problems.push(`${where}: ${e.name} has a literal value`);
    }
  }
  return problems;
}

/** Selectors (Service, PDB, NetworkPolicy) that match pods, ports that exist, one namespace. */
function checkWiring(objects: K8sObject[], ctx: Context): string[] {
  const problems: string[] = [];
  const ws = workloads(objects);
  const selected = (sel: Record<string, string> | undefined) => ws.filter((w) => matches(sel, podLabels(w)));
  for (const s of of<IService>(objects, 'Service')) {
    const targets = selected(s.spec?.selector);
    if (targets.length !== 1) {
      problems.push(`${label(s)}: selector matches ${targets.length} workloads, not 1`);
      continue;
    }
    const containers = podSpec(targets[0] as Workload)?.containers ?? [];
    for (const p of s.spec?.ports ?? [])
      if (!containers.some((c) => containerPort(c, p.targetPort ?? p.port) !== undefined))
        problems.push(`${label(s)}: targetPort ${String(p.targetPort ?? p.port)} is not a container port of ${label(targets[0] as Workload)}`);
  }
  for (const p of of<IPodDisruptionBudget>(objects, 'PodDisruptionBudget'))
    if (selected(p.spec?.selector?.matchLabels).length !== 1) problems.push(`${label(p)}: selector does not match one workload`);
  const policies = of<INetworkPolicy>(objects, 'NetworkPolicy');
  for (const n of policies) if (selected(n.spec?.podSelector?.matchLabels).length === 0) problems.push(`${label(n)}: selects no workload`);
  for (const w of ws)
    if (!policies.some((n) => matches(n.spec?.podSelector?.matchLabels, podLabels(w)) && n.spec?.policyTypes?.includes('Ingress')))
      problems.push(`${label(w)}: no NetworkPolicy restricts who may connect`);
  const redisPolicy = policies.find((n) => n.metadata.name === 'redis');
  if (redisPolicy) {
    const from = (redisPolicy.spec?.ingress ?? []).flatMap((r) => r.from ?? []);
    const allowed = ws.filter((w) => from.some((f) => !f.namespaceSelector && f.podSelector && podMatchesSelector(f.podSelector, podLabels(w))));
    const names = allowed.map((w) => w.metadata.name).sort();
    if (names.join() !== [...SERVICES].sort().join() || from.some((f) => f.namespaceSelector || f.ipBlock))
      problems.push(`NetworkPolicy/redis: admits ${names.join(', ') || 'nothing'} (and others?), not exactly the two services`);
  }
  for (const o of objects) {
    const ns = o.metadata.namespace ?? null;
    if (o.kind === 'Namespace') continue;
    if (ns !== ctx.namespace) problems.push(`${label(o)}: namespace ${ns ?? '(none)'}, expected ${ctx.namespace ?? '(none)'}`);
  }
  return problems;
}

function podMatchesSelector(sel: { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values?: string[] }[] }, labels: Record<string, string> | undefined): boolean {
  const byLabels = Object.entries(sel.matchLabels ?? {}).every(([k, v]) => labels?.[k] === v);
  const byExpr = (sel.matchExpressions ?? []).every((e) => {
    const v = labels?.[e.key];
    if (e.operator === 'In') return v !== undefined && (e.values ?? []).includes(v);
    if (e.operator === 'Exists') return v !== undefined;
    return false;
  });
  return byLabels && byExpr;
}

/** Ingress hosts = the hosts of AUTH_URL and BASE_URL, each to its service, all under TLS. */
function checkIngress(objects: K8sObject[]): string[] {
  const problems: string[] = [];
  const config = of<IConfigMap>(objects, 'ConfigMap').find((c) => c.data?.['AUTH_URL'] !== undefined);
  const services = of<IService>(objects, 'Service');
  const ingresses = of<IIngress>(objects, 'Ingress');
  if (!config?.data) return ['ConfigMap with AUTH_URL: missing'];
  const want: Record<string, string> = {};
  for (const [variable, service] of [['AUTH_URL', 'auth-service'], ['BASE_URL', 'mcp-gateway']] as const) {
    const url = new URL(config.data[variable] ?? 'invalid:');
    if (url.protocol !== 'https:') problems.push(`${label(config)}: ${variable} is not https`);
    want[url.host] = service;
  }
  for (const ing of ingresses) {
    const tlsHosts = new Set((ing.spec?.tls ?? []).flatMap((t) => t.hosts ?? []));
    const main = (ing.spec?.tls ?? []).length > 0;
    for (const rule of ing.spec?.rules ?? []) {
      const host = rule.host ?? '';
      if (!(host in want)) problems.push(`${label(ing)}: host ${host} is neither AUTH_URL's nor BASE_URL's`);
      if (main && !tlsHosts.has(host)) problems.push(`${label(ing)}: host ${host} has no TLS`);
      for (const path of rule.http?.paths ?? []) {
        const backend = path.backend.service;
        const svc = services.find((s) => s.metadata.name === backend?.name);
        if (!backend || !svc) problems.push(`${label(ing)}: ${host}${path.path} goes to a Service that does not exist`);
        else if (want[host] && backend.name !== want[host]) problems.push(`${label(ing)}: ${host}${path.path} goes to ${backend.name}, not ${want[host]}`);
        else if (!(svc.spec?.ports ?? []).some((p) => p.name === backend.port?.name || p.port === backend.port?.number))
          problems.push(`${label(ing)}: ${host}${path.path} names a port ${label(svc)} does not have`);
      }
    }
  }
  for (const host of Object.keys(want))
    if (!ingresses.some((i) => (i.spec?.tls ?? []).some((t) => t.hosts?.includes(host)))) problems.push(`Ingress: ${host} is not served under TLS`);
  return problems;
}

/** Every check above. */
export function checkAll(objects: K8sObject[], ctx: Context): string[] {
  return [
    ...checkContainers(objects),
    ...checkServices(objects),
    ...checkConfiguration(objects, ctx),
    ...checkWiring(objects, ctx),
    ...checkIngress(objects),
  ];
}
