package main

import (
	"errors"

	"github.com/spf13/cobra"
)

// newRunCommand is replaced by the scenario runner's command.
func newRunCommand(sig *signals, s streams) *cobra.Command {
	return &cobra.Command{
		Use:   "run SCRIPT",
		Short: "Run a k6-style scenario script",
		RunE: func(*cobra.Command, []string) error {
			return withCode(2, errors.New("dnecho run is not built yet"))
		},
	}
}
