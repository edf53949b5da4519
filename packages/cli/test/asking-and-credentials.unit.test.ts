/**
 * Two things `svc upstreams` reads from the person rather than the command line (docs/cli.md
 * "Asking first", "Upstream MCP servers"): the confirmation of a removal, typed on a terminal and
 * never awaited elsewhere; and an upstream's credential, from the environment or a pipe, never
 * from a terminal that would echo it, whose value no message repeats.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { confirmByName, type ConfirmOptions } from '../src/confirm.ts';
import { CliError } from '../src/errors.ts';
import { upstreamCredential } from '../src/upstream-credential.ts';

/** A stream that says it is (or is not) a terminal. */
function stream(isTTY: boolean): PassThrough & { isTTY: boolean } {
  return Object.assign(new PassThrough(), { isTTY });
}

const ASK: ConfirmOptions = {
  action: 'remove upstream notes from demo',
  consequence: 'Its tools stop being offered.',
  name: 'notes',
  withYes: 'svc upstreams remove notes --project demo --yes',
};

async function refusal(work: Promise<unknown>): Promise<CliError> {
  try {
    await work;
  } catch (err) {
    assert.ok(err instanceof CliError, String(err));
    return err;
  }
  assert.fail('it was not refused');
}

test('confirm: on a terminal the name typed confirms, anything else or Ctrl-D does not', async () => {
  for (const [typed, ok] of [
    ['notes\n', true],
    ['  notes  \n', true],
    ['yes\n', false],
    ['', false],
  ] as const) {
    const input = stream(true);
    const output = stream(true);
    let shown = '';
    output.on('data', (d: Buffer) => (shown += d.toString()));
    const asked = confirmByName({ ...ASK, input, output, env: {} });
    input.end(typed);
    if (ok) await asked;
    else assert.match((await refusal(asked)).message, /^Nothing done: notes was not typed\.$/);
    assert.equal(shown, 'Remove upstream notes from demo? Its tools stop being offered.\nType notes to confirm: ');
  }
});

test('confirm: without a terminal on stdin or stderr, or in CI, it refuses at once and names --yes', async () => {
  for (const [inTTY, outTTY, env] of [
    [false, true, {}],
    [true, false, {}],
    [true, true, { CI: 'true' }],
  ] as const) {
    const input = stream(inTTY);
    const err = await refusal(confirmByName({ ...ASK, input, output: stream(outTTY), env }));
    assert.equal(err.exitCode, 2);
    assert.match(err.message, /there is no terminal here to ask on/);
    assert.equal(err.hint, `To do it without being asked: ${ASK.withYes}`);
    assert.equal(input.listenerCount('data'), 0, 'stdin was not read');
  }
});

test('credential: the header names it, the value comes from the environment or a pipe (one line end dropped), never echoed back', async () => {
  const env = { SVC_UPSTREAM_CREDENTIAL: 's3cret-value' };
  assert.equal(await upstreamCredential({}, env, stream(false)), undefined, 'no header: no credential, the variable ignored');
  assert.deepEqual(await upstreamCredential({ 'credential-header': 'X-Api-Key' }, env, stream(false)), {
    header: 'X-Api-Key',
    value: 's3cret-value',
  });
  const pipe = stream(false);
  pipe.end('from-a-pipe\r\n');
  assert.deepEqual(await upstreamCredential({ 'credential-header': 'Authorization', 'credential-stdin': true }, env, pipe), {
    header: 'Authorization',
    value: 'from-a-pipe',
  });

  const tty = await refusal(upstreamCredential({ 'credential-header': 'X', 'credential-stdin': true }, {}, stream(true)));
  assert.match(tty.message, /--credential-stdin reads a pipe, not a terminal/);
  const none = await refusal(upstreamCredential({ 'credential-header': 'X' }, {}, stream(false)));
  assert.match(none.message, /needs the credential's value in SVC_UPSTREAM_CREDENTIAL, or on stdin with --credential-stdin/);
  const empty = stream(false);
  empty.end('\n');
  await refusal(upstreamCredential({ 'credential-header': 'X', 'credential-stdin': true }, {}, empty));
  const noHeader = await refusal(upstreamCredential({ 'credential-stdin': true }, env, stream(false)));
  assert.match(noHeader.message, /name its header with --credential-header/);

  const long = stream(false);
  long.end('x'.repeat(5000));
  const tooLong = await refusal(upstreamCredential({ 'credential-header': 'X', 'credential-stdin': true }, {}, long));
  assert.match(tooLong.message, /longer than 4096 characters/);
  assert.ok(!tooLong.message.includes('xxxx'), 'the value is not in the message');
});
