export { UpstreamFailure } from './answer.ts';
export { Breakers } from './breaker.ts';
export { UPSTREAM_LIMITS } from './limits.ts';
export { listedName } from './names.ts';
export { rotateSigningKey, RotationRefused } from './signing-keys.ts';
export {
  createUpstreams,
  UpstreamInputError,
  type ToolChange,
  type UpstreamChange,
  type Upstreams,
  type UpstreamView,
} from './upstreams.ts';
export type * from './types.ts';
export { upstreamAnswer } from './wire.ts';
