/** Signed webhooks per workspace (docs/webhooks.md). */
export * from './bounds.ts';
export { WebhookStore, type DeliveryAttempt, type DeliveryState, type EndpointChange, type WebhookEndpoint } from './store.ts';
export { createWebhookWorker, type WebhookSend, type WebhookWorker } from './worker.ts';
