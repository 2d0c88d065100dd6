package restapi

import (
	"net/http"
	"strings"

	"github.com/dnecho/dnecho/engine/checktree"
)

// checkAttributes and groupAttributes are k6's group documents (grafana/k6 api/v1/group.go,
// group_jsonapi.go); a group without checks has "checks": null, as in k6.
type checkAttributes struct {
	ID     string `json:"id"`
	Path   string `json:"path"`
	Name   string `json:"name"`
	Passes int64  `json:"passes"`
	Fails  int64  `json:"fails"`
}

type groupAttributes struct {
	Path   string            `json:"path"`
	Name   string            `json:"name"`
	Checks []checkAttributes `json:"checks"`
}

type relation struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

type groupData struct {
	Type          string          `json:"type"`
	ID            string          `json:"id"`
	Attributes    groupAttributes `json:"attributes"`
	Relationships struct {
		Groups struct {
			Data []relation `json:"data"`
		} `json:"groups"`
		Parent struct {
			Data *relation `json:"data"`
		} `json:"parent"`
	} `json:"relationships"`
}

// flatten lists g and its descendants, parents first.
func flatten(g *checktree.Group, out []groupData) []groupData {
	d := groupData{Type: "groups", ID: g.ID, Attributes: groupAttributes{Path: g.Path, Name: g.Name}}
	for _, c := range g.Checks() {
		passes, fails := c.Counts()
		d.Attributes.Checks = append(d.Attributes.Checks, checkAttributes{ID: c.ID, Path: c.Path, Name: c.Name, Passes: passes, Fails: fails})
	}
	subs := g.Groups()
	d.Relationships.Groups.Data = make([]relation, 0, len(subs))
	for _, sub := range subs {
		d.Relationships.Groups.Data = append(d.Relationships.Groups.Data, relation{Type: "groups", ID: sub.ID})
	}
	if g.Parent != nil {
		d.Relationships.Parent.Data = &relation{Type: "groups", ID: g.Parent.ID}
	}
	out = append(out, d)
	for _, sub := range subs {
		out = flatten(sub, out)
	}
	return out
}

func (h *handlers) allGroups() []groupData {
	root := h.c.Groups()
	if root == nil {
		return []groupData{}
	}
	return flatten(root, nil)
}

func (h *handlers) getGroups(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, "application/json", struct {
		Data []groupData `json:"data"`
	}{h.allGroups()})
}

func (h *handlers) getGroup(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimPrefix(r.URL.Path, "/v1/groups/")
	for _, g := range h.allGroups() {
		if g.ID == id {
			writeJSON(w, "application/json", struct {
				Data groupData `json:"data"`
			}{g})
			return
		}
	}
	apiError(w, "Not Found", "No group with that ID was found", http.StatusNotFound)
}
