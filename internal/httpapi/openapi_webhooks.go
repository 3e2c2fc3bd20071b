package httpapi

// The OpenAPI operations and schemas of webhooks (docs/webhooks.md).

var webhookOperations = map[string]operation{
	"GET /api/webhooks":                                            {"The site's webhooks, oldest first (admins)", "webhooks", "", ok(200, "[]Webhook"), pageQuery, false},
	"GET /api/webhooks/count":                                      {"The number of webhooks (admins)", "webhooks", "", ok(200, "Count"), nil, false},
	"POST /api/webhooks":                                           {"Create a webhook {url, events, channel, path_prefix, active, secret}; the answer shows its secret (admins)", "webhooks", "WebhookWrite", ok(201, "Webhook"), nil, false},
	"GET /api/webhooks/{webhook}":                                  {"One webhook, without its secret (admins)", "webhooks", "", ok(200, "Webhook"), nil, false},
	"PUT /api/webhooks/{webhook}":                                  {"Change a webhook: the keys sent; a new secret is shown once; active true resumes a disabled one (admins)", "webhooks", "WebhookWrite", ok(200, "Webhook"), nil, true},
	"PATCH /api/webhooks/{webhook}":                                {"Change a webhook (as PUT; admins)", "webhooks", "WebhookWrite", ok(200, "Webhook"), nil, true},
	"DELETE /api/webhooks/{webhook}":                               {"Delete a webhook and its delivery log (admins)", "webhooks", "", ok(204, ""), nil, true},
	"GET /api/webhooks/{webhook}/deliveries":                       {"A webhook's delivery log, newest first (admins)", "webhooks", "", ok(200, "[]WebhookDelivery"), pageQuery, false},
	"POST /api/webhooks/{webhook}/deliveries/{delivery}/redeliver": {"Post a logged delivery's event again now, with the same delivery id; the try is the answer (admins)", "webhooks", "", ok(201, "WebhookDelivery"), nil, false},
}

func webhookSchemas() map[string]any {
	str := map[string]any{"type": "string"}
	boolean := map[string]any{"type": "boolean"}
	integer := map[string]any{"type": "integer"}
	strs := map[string]any{"type": "array", "items": str}
	return map[string]any{
		"Webhook": map[string]any{"type": "object",
			"required": []string{"id", "url", "target_url", "events", "active", "created_at", "updated_at"},
			"properties": map[string]any{"id": str, "url": str, "target_url": str, "events": strs, "channel": str, "path_prefix": str,
				"active": boolean, "secret": str, "disabled_reason": str, "created_at": str, "updated_at": str}},
		"WebhookWrite": map[string]any{"type": "object",
			"properties": map[string]any{"url": str, "target_url": str, "events": map[string]any{"type": []string{"array", "string"}},
				"channel": str, "path_prefix": str, "active": boolean, "secret": str}},
		"WebhookDelivery": map[string]any{"type": "object",
			"required": []string{"id", "event_id", "event_seq", "event", "attempt", "redelivery", "ok", "status", "duration_ms", "response", "created_at"},
			"properties": map[string]any{"id": str, "event_id": str, "event_seq": integer, "event": str, "attempt": integer,
				"redelivery": boolean, "ok": boolean, "status": integer, "duration_ms": integer, "response": str, "error": str, "created_at": str}},
	}
}

func init() {
	for k, v := range webhookOperations {
		operations[k] = v
	}
}
