/**
 * Client governance decisions (docs/management.md "Client governance"), generated: every kind of
 * rule, in the allow or the deny list, matching the client or not, in every mode, with every state
 * of an owner's approval, against the rule said once here in plain terms.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CLIENT_POLICY_MODES,
  CLIENT_RULE_KINDS,
  clientRuleProblem,
  decideClient,
  ruleMatches,
  type ClientApprovalState,
  type ClientPolicy,
  type ClientRule,
  type ClientRuleKind,
} from '../src/client-policy-rules.ts';

const CLIENT = { clientId: 'https://claude.ai/oauth/mcp-oauth-client-metadata', name: 'Claude' };
/** For each kind, a rule that names CLIENT and one that does not. */
const RULES: Record<ClientRuleKind, { matching: string[]; other: string[] }> = {
  client_id: { matching: [CLIENT.clientId], other: ['https://claude.ai/other', 'claude'] },
  host: { matching: ['claude.ai', 'CLAUDE.AI', '*.ai'], other: ['chatgpt.com', '*.claude.ai', 'ai'] },
  name: { matching: ['Claude', 'claude', 'ＣＬＡＵＤＥ'], other: ['Claude Code', 'ChatGPT'] },
};
const APPROVALS: (ClientApprovalState | null)[] = [null, 'pending', 'approved', 'denied'];

/** The rule in words: deny wins; open admits; allow admits; allowlist refuses; approval follows the owner. */
function expected(mode: ClientPolicy['mode'], list: 'allow' | 'deny', matches: boolean, approval: ClientApprovalState | null): string {
  if (list === 'deny' && matches) return 'refused';
  if (mode === 'open') return 'allowed';
  if (list === 'allow' && matches) return 'allowed';
  if (mode === 'allowlist') return 'refused';
  if (approval === 'approved') return 'allowed';
  if (approval === 'denied') return 'refused';
  return 'pending';
}

test('every list kind x allow/deny x matching or not x mode x approval state', () => {
  let cases = 0;
  for (const kind of CLIENT_RULE_KINDS)
    for (const list of ['allow', 'deny'] as const)
      for (const matches of [true, false])
        for (const value of RULES[kind][matches ? 'matching' : 'other'])
          for (const mode of CLIENT_POLICY_MODES)
            for (const approval of APPROVALS) {
              const rule: ClientRule = { kind, value };
              assert.equal(ruleMatches(rule, CLIENT), matches, `${kind} ${value}`);
              const policy: ClientPolicy = {
                mode,
                allow: list === 'allow' ? [rule] : [],
                deny: list === 'deny' ? [rule] : [],
                updatedAt: 1,
              };
              const verdict = decideClient(policy, CLIENT, approval);
              const label = JSON.stringify({ kind, value, list, mode, approval });
              assert.equal(verdict.outcome, expected(mode, list, matches, approval), label);
              // The verdict names the rule it rests on.
              if (matches && (list === 'deny' || mode !== 'open')) assert.equal(verdict.rule, `${list} ${kind} ${value}`, label);
              cases++;
            }
  assert.ok(cases > 300, `${cases} cases`);
});

test('the deny list wins over the allow list naming the same client', () => {
  for (const mode of CLIENT_POLICY_MODES) {
    const policy: ClientPolicy = {
      mode,
      allow: [{ kind: 'host', value: 'claude.ai' }],
      deny: [{ kind: 'name', value: 'claude' }],
      updatedAt: 1,
    };
    assert.deepEqual(decideClient(policy, CLIENT, 'approved'), { outcome: 'refused', rule: 'deny name claude' }, mode);
  }
});

test('a host rule never names a registered client (its id is not a URL); a name rule needs a name', () => {
  const registered = { clientId: 'claude.ai', name: null };
  assert.equal(ruleMatches({ kind: 'host', value: 'claude.ai' }, registered), false);
  assert.equal(ruleMatches({ kind: 'name', value: 'claude.ai' }, registered), false);
  assert.equal(ruleMatches({ kind: 'client_id', value: 'claude.ai' }, registered), true);
});

test('rules with an empty, padded, overlong or malformed value are refused, naming the problem', () => {
  const bad: ClientRule[] = [
    { kind: 'name', value: '' },
    { kind: 'name', value: ' Claude' },
    { kind: 'client_id', value: 'x'.repeat(201) },
    { kind: 'host', value: 'https://claude.ai' },
    { kind: 'host', value: 'claude.ai/path' },
    { kind: 'client_id', value: 'a\u0000b' },
  ];
  for (const rule of bad) assert.ok(clientRuleProblem(rule), JSON.stringify(rule));
  for (const rule of [
    { kind: 'host', value: '*.example.com' },
    { kind: 'host', value: 'localhost:8443' },
  ] as ClientRule[])
    assert.equal(clientRuleProblem(rule), null, JSON.stringify(rule));
});
