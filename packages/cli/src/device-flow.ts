/**
 * The client side of the device authorization grant (RFC 8628; docs/contract.md "Device flow"):
 * request a code, show where to approve it, poll no faster than `interval` (plus 5 s for every
 * `slow_down`), and turn each outcome into a result or a CliError that explains it: any poll
 * error but `authorization_pending` and `slow_down` ends the wait.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { CliError, EXIT } from './errors.ts';
import { requestJson, serverMessage, type JsonResponse } from './http.ts';
import type { Waiting } from './ui.ts';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export interface DeviceCode {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete?: string;
  expires_in: number;
  interval?: number;
}

export interface DeviceFlowOptions {
  authUrl: string;
  clientId: string;
  /** Extra fields of the code request (create-svc: `auto_provision`). */
  codeRequest?: Record<string, unknown>;
  /** Extra fields of every poll (svc-cli: `client_version`). */
  pollRequest?: Record<string, unknown>;
  /** Shows the code and where to enter it. */
  show(code: DeviceCode): void;
  progress: Waiting;
}

async function requestDeviceCode(opts: DeviceFlowOptions): Promise<DeviceCode> {
  const res = await requestJson(`${opts.authUrl}/api/oauth/device/code`, { body: { client_id: opts.clientId, ...opts.codeRequest } });
  const b = res.body;
  if (
    res.status !== 200 ||
    typeof b['device_code'] !== 'string' ||
    typeof b['user_code'] !== 'string' ||
    typeof b['verification_uri'] !== 'string'
  ) {
    const { message } = serverMessage(res);
    throw new CliError(`The authorization server refused to start the sign-in: ${message}`, EXIT.failed);
  }
  return b as unknown as DeviceCode;
}

/** Runs the whole flow and returns the token response of the approved request. */
export async function deviceFlow(opts: DeviceFlowOptions): Promise<Record<string, unknown>> {
  const code = await requestDeviceCode(opts);
  opts.show(code);
  let interval = Math.max(1, code.interval ?? 5);
  const deadline = Date.now() + code.expires_in * 1000;
  try {
    for (;;) {
      opts.progress.tick(deadline);
      await sleep(interval * 1000);
      if (Date.now() >= deadline) throw expired();
      const res = await requestJson(`${opts.authUrl}/api/oauth/token`, {
        body: { grant_type: DEVICE_GRANT, device_code: code.device_code, client_id: opts.clientId, ...opts.pollRequest },
      });
      if (res.status === 200) return res.body;
      const error = String(res.body['error'] ?? '');
      if (error === 'authorization_pending') continue;
      if (error === 'slow_down') {
        interval += 5;
        opts.progress.note(`The server asked to poll more slowly; now every ${interval} s.`);
        continue;
      }
      throw pollFailure(error, res);
    }
  } finally {
    opts.progress.stop();
  }
}

/**
 * Why the wait ends, for every poll answer but authorization_pending and slow_down (RFC 8628
 * §3.5): the person denied it or abandoned the page (access_denied), the code ran out
 * (expired_token), it was used already or is unknown (invalid_grant), or anything else; each
 * says what happened and what to run.
 */
function pollFailure(error: string, res: JsonResponse): CliError {
  if (error === 'access_denied')
    return new CliError(
      'The sign-in was denied or cancelled in the browser. Nothing was authorized.',
      EXIT.notApproved,
      'Run the command again to start over.',
    );
  if (error === 'expired_token') return expired();
  if (error === 'invalid_grant')
    return new CliError(
      `This sign-in code can no longer be used: it was used already, or abandoned (${serverMessage(res).message}).`,
      EXIT.notApproved,
      'Run the command again for a new code, and approve it in the browser within its time.',
    );
  const { message } = serverMessage(res);
  return new CliError(
    `Sign-in stopped: the authorization server answered ${message} (HTTP ${res.status}).`,
    EXIT.failed,
    'Run the command again; if it keeps failing, check the sign-in server (--auth-server, SVC_AUTH_URL).',
  );
}

function expired(): CliError {
  return new CliError('The code expired before it was approved.', EXIT.notApproved, 'Run the command again to get a new code.');
}
