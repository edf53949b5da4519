/** @svc/auth-service: the authorization server on `{auth_url}`. */
export { startAuthService, type StartAuthServiceOptions, type RunningAuthService } from './server.ts';
export { createApp, type AppDeps, type AuthApp } from './app.ts';
export { OK as OIDC_KEYS, OIDC_PREFIX } from './provider/redis-keys.ts';
export { projectOfResource, resourceFor } from './provider/resource.ts';
