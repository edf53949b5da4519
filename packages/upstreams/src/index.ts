export { UpstreamFailure, type FailureReason, type RpcError, type Answer } from './answer.ts';
export { Breakers } from './breaker.ts';
export { UpstreamClient, FORWARDED_TOKEN_HEADER, type AllowedBlock, type Endpoint } from './client.ts';
export { defaultLevel } from './defaults.ts';
export { UPSTREAM_LIMITS } from './limits.ts';
export { listedName, splitListedName, upstreamNameProblem, UPSTREAM_NAME } from './names.ts';
export { ForwardedTokens, type ForwardedClaims } from './signing.ts';
export {
  createUpstreams,
  reasonOf,
  UpstreamInputError,
  type RegisterInput,
  type ToolChange,
  type UpstreamChange,
  type Upstreams,
  type UpstreamView,
} from './upstreams.ts';
export type * from './types.ts';
