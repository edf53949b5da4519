/** The OAuth and page refusal families keep the rules of docs/errors.md "Three families, one table". */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { test } from 'node:test';
import {
  oauthAnswer,
  pageRefusalOf,
  pageStatus,
  REFUSAL_FAMILIES,
  SCIM_REFUSALS,
  scimErrorBody,
  scimStatus,
  type OAuthRefusal,
  type PageRefusal,
} from '@svc/errors';

const names = <K extends string>(o: Readonly<Record<K, unknown>>) => Object.keys(o) as K[];

test('every refusal of both families is an error status', () => {
  for (const name of names(REFUSAL_FAMILIES.page)) {
    const status = pageStatus(name);
    assert.ok(status >= 400 && status <= 599, `${name}: ${status}`);
  }
  const oauth: OAuthRefusal[] = [...names(REFUSAL_FAMILIES.oauth), ...names(REFUSAL_FAMILIES.oauthHttpLevel)];
  for (const name of oauth) {
    const { error, status } = oauthAnswer(name);
    assert.ok(status >= 400 && status <= 599, `${name}: ${status}`);
    // The body's `error` is always one of the RFCs' codes, even for the two HTTP-level refusals.
    assert.ok(error in REFUSAL_FAMILIES.oauth, `${name} answers ${error}`);
  }
});

test("a layer's status maps to the page refusal of that status; an unknown client error stays a client error", () => {
  for (const name of names(REFUSAL_FAMILIES.page)) assert.equal(pageStatus(pageRefusalOf(pageStatus(name))), pageStatus(name), name);
  const expected: Record<number, PageRefusal> = {
    400: 'invalid_form',
    403: 'forbidden',
    415: 'unsupported_form',
    502: 'provider_failed',
    418: 'invalid_form',
    200: 'failed',
    504: 'failed',
  };
  for (const [status, name] of Object.entries(expected)) assert.equal(pageRefusalOf(Number(status)), name, status);
});

test('docs/errors.md lists every name of both families with its status', async () => {
  const doc = await readFile(new URL('../../../docs/errors.md', import.meta.url), 'utf8');
  const section = doc.slice(doc.indexOf('## Three families, one table'));
  assert.ok(section.length > 0, 'docs/errors.md has the section');
  const rows = [
    ...names(REFUSAL_FAMILIES.page).map((n) => [n, pageStatus(n)] as const),
    ...[...names(REFUSAL_FAMILIES.oauth), ...names(REFUSAL_FAMILIES.oauthHttpLevel)].map((n) => [n, oauthAnswer(n).status] as const),
    ...names(SCIM_REFUSALS).map((n) => [n, scimStatus(n)] as const),
  ];
  for (const [name, status] of rows) assert.match(section, new RegExp(`\\| \`${name}\` \\| ${status} \\|`), `${name} ${status}`);
});

test('a SCIM refusal is the RFC 7644 §3.12 shape: status a string, scimType only for the named types', () => {
  for (const name of names(SCIM_REFUSALS)) {
    const body = scimErrorBody(name, 'why');
    assert.deepEqual(body.schemas, ['urn:ietf:params:scim:api:messages:2.0:Error'], name);
    assert.equal(body.status, String(scimStatus(name)), name);
    assert.equal(typeof body.status, 'string', name);
    assert.ok(scimStatus(name) >= 400 && scimStatus(name) <= 599, name);
    // RFC 7644 Table 9: every scimType is a 400 or (uniqueness) a 409; the other names carry none.
    if (body.scimType !== undefined) assert.ok([400, 409].includes(scimStatus(name)), name);
    else assert.ok(/^[a-z_]+$/.test(name), `${name} is an RFC scimType yet carries none`);
  }
});
