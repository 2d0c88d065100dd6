package restapi

import (
	"encoding/json"
	"net/http"
)

// setupDocument is /v1/setup's answer (grafana/k6 api/v1/setup_teardown_routes.go): the data
// under attributes.data, or empty attributes when there is none.
func setupDocument(data json.RawMessage) any {
	type attributes struct {
		Data json.RawMessage `json:"data,omitempty"`
	}
	type setupData struct {
		Type       string     `json:"type"`
		ID         string     `json:"id"`
		Attributes attributes `json:"attributes"`
	}
	return struct {
		Data setupData `json:"data"`
	}{setupData{Type: "setupData", ID: "default", Attributes: attributes{Data: data}}}
}

func (h *handlers) getSetup(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, "application/json", setupDocument(h.c.SetupData()))
}

func (h *handlers) putSetup(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r, "Error reading request body")
	if !ok {
		return
	}
	if len(body) > 0 {
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			apiError(w, "Error parsing request body", err.Error(), http.StatusBadRequest)
			return
		}
		h.c.SetSetupData(json.RawMessage(body))
	} else {
		h.c.SetSetupData(nil)
	}
	writeJSON(w, "application/json", setupDocument(h.c.SetupData()))
}

func (h *handlers) runSetup(w http.ResponseWriter, r *http.Request) {
	data, err := h.c.RunSetup(r.Context())
	if err != nil {
		h.log.Error("Error executing setup", "error", err)
		apiError(w, "Error executing setup", err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, "application/json", setupDocument(data))
}

func (h *handlers) runTeardown(w http.ResponseWriter, r *http.Request) {
	if err := h.c.RunTeardown(r.Context()); err != nil {
		h.log.Error("Error executing teardown", "error", err)
		apiError(w, "Error executing teardown", err.Error(), http.StatusInternalServerError)
	}
}
