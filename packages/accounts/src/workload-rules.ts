/**
 * Workload identity rules (docs/workload-identity.md "Rules"): which claims of a workload's token
 * each issuer kind offers to a rule, how a rule's pattern matches a claim, and which rules are too
 * broad to be saved. The shapes are the issuers' own: GitHub Actions' OIDC token, a Kubernetes
 * projected service-account token (its `kubernetes.io` claim object) and a SPIFFE JWT-SVID.
 */

/** The kinds of workload issuer svc trusts. */
export const WORKLOAD_ISSUER_KINDS = ['github-actions', 'kubernetes', 'spiffe'] as const;
export type WorkloadIssuerKind = (typeof WORKLOAD_ISSUER_KINDS)[number];

/** GitHub's one issuer of Actions OIDC tokens (an enterprise may have its own under it). */
export const GITHUB_ACTIONS_ISSUER = 'https://token.actions.githubusercontent.com';

/** The claims a rule of each kind may name. */
export const WORKLOAD_CLAIMS: Readonly<Record<WorkloadIssuerKind, readonly string[]>> = {
  'github-actions': ['sub', 'repository', 'repository_owner', 'ref', 'environment', 'workflow', 'job_workflow_ref'],
  kubernetes: ['sub', 'namespace', 'service_account'],
  spiffe: ['spiffe_id'],
};

type Claims = Record<string, unknown>;

/** The value of a rule's claim in a token of `kind`; undefined when the token has none (or not a string). */
export function workloadClaim(kind: WorkloadIssuerKind, claims: Claims, name: string): string | undefined {
  let value: unknown;
  if (kind === 'kubernetes' && (name === 'namespace' || name === 'service_account')) {
    // The projected token's private claim (Kubernetes "Service account tokens": kubernetes.io).
    const k8s = claims['kubernetes.io'] as { namespace?: unknown; serviceaccount?: { name?: unknown } } | undefined;
    value = name === 'namespace' ? k8s?.namespace : k8s?.serviceaccount?.name;
  } else value = kind === 'spiffe' && name === 'spiffe_id' ? claims['sub'] : claims[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Whether `value` matches `pattern`: exact, except that `*` stands for any run of characters
 * without `/` and `**` for any run at all (so `refs/heads/release/*` is one level of branches).
 */
export function claimMatches(pattern: string, value: string): boolean {
  if (!pattern.includes('*')) return pattern === value;
  const source = pattern
    .split('**')
    .map((part) =>
      part
        .split('*')
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*'),
    )
    .join('.*');
  return new RegExp(`^${source}$`, 's').test(value);
}

const hasGlob = (s: string) => s.includes('*');

/**
 * Why a rule's claims are refused for an issuer of `kind` at `issuer`, or null. Every rule names at
 * least one claim; a GitHub Actions rule pins its owner without a wildcard (GitHub's issuer signs
 * for every repository on GitHub), and a SPIFFE rule's ID is in the issuer's trust domain.
 */
export function ruleProblem(
  kind: WorkloadIssuerKind,
  issuer: string,
  claims: Record<string, string>,
  maxClaims: number,
  maxLength: number,
): string | null {
  const names = Object.keys(claims);
  if (names.length === 0 || names.length > maxClaims) return `a rule names 1 to ${maxClaims} claims`;
  for (const name of names) {
    if (!WORKLOAD_CLAIMS[kind].includes(name)) return `a ${kind} rule names only ${WORKLOAD_CLAIMS[kind].join(', ')} (not ${name})`;
    const p = claims[name];
    if (typeof p !== 'string' || p.length === 0 || p.length > maxLength) return `claim ${name} must be 1 to ${maxLength} characters`;
  }
  if (kind === 'github-actions') {
    const owner = claims['repository_owner'];
    const repo = claims['repository'];
    const sub = claims['sub'];
    const pinned =
      (owner !== undefined && !hasGlob(owner)) ||
      (repo !== undefined && repo.includes('/') && !hasGlob(repo.slice(0, repo.indexOf('/')))) ||
      (sub !== undefined && /^repo:[^/*]+\//.test(sub));
    if (!pinned)
      return 'a github-actions rule must pin the owner: repository_owner, repository OWNER/REPO or sub repo:OWNER/... without a wildcard in OWNER';
  }
  if (kind === 'spiffe') {
    const id = claims['spiffe_id'];
    if (id === undefined || !id.startsWith(`${issuer}/`)) return `a spiffe rule names a spiffe_id in its trust domain: ${issuer}/...`;
  }
  return null;
}

/**
 * Rules in their command-line form (docs/workload-identity.md "Examples"), as `svc` and svc-admin
 * take them: `SERVICE_ACCOUNT=claim:pattern[,claim:pattern...]`, several rules separated by `;`.
 * A pattern runs to the next `,` and may itself hold `:` (a GitHub `sub`). Throws naming the part
 * it cannot read.
 */
export function parseRuleSpecs(text: string): { serviceAccount: string; claims: Record<string, string> }[] {
  return text
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((spec) => {
      const eq = spec.indexOf('=');
      if (eq <= 0) throw new Error(`a rule is SERVICE_ACCOUNT=claim:pattern[,claim:pattern...], not ${JSON.stringify(spec)}`);
      const claims: Record<string, string> = {};
      for (const pair of spec.slice(eq + 1).split(',')) {
        const colon = pair.indexOf(':');
        if (colon <= 0) throw new Error(`a rule's claim is claim:pattern, not ${JSON.stringify(pair)}`);
        claims[pair.slice(0, colon).trim()] = pair.slice(colon + 1).trim();
      }
      return { serviceAccount: spec.slice(0, eq).trim(), claims };
    });
}
