// Package restapi is k6's REST API (v1) for one test run: the endpoints k6-operator drives
// (GET/PATCH /v1/status, /v1/setup, /v1/teardown) and the read-only views (/v1/metrics,
// /v1/groups), with k6's JSON:API documents, error bodies and status codes (grafana/k6
// api/v1/routes.go and its neighbours; docs/k6-compat.md, "REST API"). The package knows
// nothing about how a run works: it serves a Controller, which the runner implements.
package restapi
