export * from './plans.ts';
export * from './levels.ts';
export * from './tools.ts';
export * from './scopes.ts';
export * from './approvals.ts';
