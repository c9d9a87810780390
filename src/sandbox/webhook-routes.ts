// POST /sandbox/webhooks/test: the reference's path of the TEST event, the same operation as /webhooks/test.
import { testWebhookRoute } from '../webhooks/routes';

export const sandboxWebhookRoutes = [testWebhookRoute('/sandbox/webhooks/test', 'sendTestWebhook', 'Sandbox', ' (sandbox only)')];
