package restapi

import (
	"encoding/json"
	"net/http"
)

// statusAttributes is the `attributes` object of /v1/status, in k6's key order (grafana/k6
// api/v1/status.go).
type statusAttributes struct {
	Status  RunStatus `json:"status"`
	Paused  bool      `json:"paused"`
	VUs     int64     `json:"vus"`
	VUsMax  int64     `json:"vus-max"`
	Stopped bool      `json:"stopped"`
	Running bool      `json:"running"`
	Tainted bool      `json:"tainted"`
}

type statusDocument struct {
	Data struct {
		Type       string           `json:"type"`
		ID         string           `json:"id"`
		Attributes statusAttributes `json:"attributes"`
	} `json:"data"`
}

// patchDocument is a PATCH /v1/status body; absent attributes stay nil.
type patchDocument struct {
	Data struct {
		Attributes struct {
			Paused  *bool  `json:"paused"`
			VUs     *int64 `json:"vus"`
			VUsMax  *int64 `json:"vus-max"`
			Stopped bool   `json:"stopped"`
		} `json:"attributes"`
	} `json:"data"`
}

func statusOf(c Controller) statusDocument {
	s := c.Status()
	var d statusDocument
	d.Data.Type, d.Data.ID = "status", "default"
	d.Data.Attributes = statusAttributes{Status: s.Status, Paused: s.Paused, VUs: s.VUs, VUsMax: s.VUsMax,
		Stopped: s.Stopped, Running: s.Running, Tainted: s.Tainted}
	return d
}

func (h *handlers) getStatus(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, "application/json; charset=utf-8", statusOf(h.c))
}

// patchStatus follows grafana/k6 api/v1/status_routes.go: stopped wins over everything; paused
// resumes a paused run; any VU change is refused, as in k6 v2.
func (h *handlers) patchStatus(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	body, ok := readBody(w, r, "Couldn't read request")
	if !ok {
		return
	}
	var doc patchDocument
	if err := json.Unmarshal(body, &doc); err != nil {
		apiError(w, "Invalid data", err.Error(), http.StatusBadRequest)
		return
	}
	a := doc.Data.Attributes
	if a.Stopped {
		h.c.Stop()
	} else {
		if a.Paused != nil {
			if err := h.c.SetPaused(*a.Paused); err != nil {
				apiError(w, "Pause error", err.Error(), http.StatusInternalServerError)
				return
			}
		}
		if a.VUs != nil || a.VUsMax != nil {
			apiError(w, "Execution config error", "live VU configuration updates are not supported", http.StatusInternalServerError)
			return
		}
	}
	writeJSON(w, "", statusOf(h.c))
}
