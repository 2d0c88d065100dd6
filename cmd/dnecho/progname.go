package main

import (
	"github.com/spf13/cobra"
)

// k6Name is the name the runner image gives dnecho (a link called k6 on PATH), so that
// k6-operator's initializer and runner commands (`k6 archive`, `k6 inspect`, `k6 run`) run it
// unchanged (grafana/k6-operator pkg/resources/jobs/initializer.go, runner.go).
const k6Name = "k6"

// applyProgName makes the command tree speak of itself by the name it was run as: usage lines
// and help say `k6 run` when dnecho runs as k6.
func applyProgName(root *cobra.Command, name string) {
	if name == k6Name {
		root.Use = k6Name
	}
}
