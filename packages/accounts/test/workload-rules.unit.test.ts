/**
 * Workload identity rules (docs/workload-identity.md "Rules"): a pattern matches exactly, `*` within
 * one path segment, `**` across; each kind's claims are read where its issuer puts them; a rule that
 * is too broad (a GitHub rule without a pinned owner, a SPIFFE ID outside its trust domain) is
 * refused. Generated: every pattern character that regular expressions treat specially is literal.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { claimMatches, ruleProblem, workloadClaim, WORKLOAD_CLAIMS, WORKLOAD_ISSUER_KINDS } from '../src/workload-rules.ts';

test('patterns: exact, * within a segment, ** across segments', () => {
  const cases: [string, string, boolean][] = [
    ['refs/heads/main', 'refs/heads/main', true],
    ['refs/heads/main', 'refs/heads/main2', false],
    ['refs/heads/*', 'refs/heads/feature', true],
    ['refs/heads/*', 'refs/heads/feature/x', false],
    ['refs/heads/**', 'refs/heads/feature/x', true],
    ['ci-*', 'ci-', true],
    ['ci-*', 'prod', false],
    ['spiffe://example.org/ns/ci/**', 'spiffe://example.org/ns/ci/sa/runner', true],
    ['spiffe://example.org/ns/ci/**', 'spiffe://example.org/ns/cid', false],
    ['a.b', 'axb', false],
  ];
  for (const [pattern, value, expected] of cases) assert.equal(claimMatches(pattern, value), expected, `${pattern} ~ ${value}`);
});

test('a pattern without * matches only itself, whatever characters it holds (generated)', () => {
  fc.assert(
    fc.property(
      fc.string({ minLength: 1 }).filter((s) => !s.includes('*')),
      fc.string(),
      (pattern, other) => {
        assert.equal(claimMatches(pattern, pattern), true);
        assert.equal(claimMatches(pattern, other), other === pattern);
      },
    ),
  );
});

test('claims are read where each issuer puts them', () => {
  const k8s = { sub: 'system:serviceaccount:ci:runner', 'kubernetes.io': { namespace: 'ci', serviceaccount: { name: 'runner' } } };
  assert.equal(workloadClaim('kubernetes', k8s, 'namespace'), 'ci');
  assert.equal(workloadClaim('kubernetes', k8s, 'service_account'), 'runner');
  assert.equal(workloadClaim('kubernetes', { namespace: 'ci' }, 'namespace'), undefined, 'not a top-level claim');
  assert.equal(workloadClaim('spiffe', { sub: 'spiffe://td/x' }, 'spiffe_id'), 'spiffe://td/x');
  assert.equal(workloadClaim('github-actions', { repository: 42 }, 'repository'), undefined, 'a non-string is no value');
});

test('rules that are too broad or name other claims are refused', () => {
  const problem = (kind: (typeof WORKLOAD_ISSUER_KINDS)[number], claims: Record<string, string>, issuer = 'spiffe://td') =>
    ruleProblem(kind, issuer, claims, 8, 256);
  assert.equal(problem('github-actions', { repository: 'acme/app' }), null);
  assert.equal(problem('github-actions', { repository_owner: 'acme', workflow: 'CI' }), null);
  assert.equal(problem('github-actions', { sub: 'repo:acme/*:ref:refs/heads/main' }), null);
  const broad: Record<string, string>[] = [
    { workflow: 'CI' },
    { repository: '*/app' },
    { repository_owner: 'ac*' },
    { sub: 'repo:*/app:ref:x' },
  ];
  for (const claims of broad) assert.match(problem('github-actions', claims) ?? '', /must pin the owner/, JSON.stringify(claims));
  assert.match(problem('spiffe', { spiffe_id: 'spiffe://other/x' }) ?? '', /trust domain/);
  assert.match(problem('kubernetes', {}) ?? '', /1 to 8 claims/);
  for (const kind of WORKLOAD_ISSUER_KINDS) {
    assert.match(problem(kind, { email: 'x' }) ?? '', /names only/);
    for (const name of WORKLOAD_CLAIMS[kind])
      assert.match(problem(kind, { [name]: 'x'.repeat(257) }) ?? '', /1 to 256 characters|must pin|trust domain/);
  }
});
