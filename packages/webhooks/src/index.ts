/** Signed webhooks per workspace (docs/webhooks.md). */
export * from './bounds.ts';
export { WebhookStore, type DeliveryAttempt, type DeliveryState, type EndpointChange, type WebhookEndpoint } from './store.ts';
export { createWebhookWorker, type WebhookRun, type WebhookWorker } from './worker.ts';
export { webhookSend } from './send.ts';
export { startWebhookWorker } from './run.ts';
