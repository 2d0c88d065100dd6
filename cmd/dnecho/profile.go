package main

import (
	"errors"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfiles starts a CPU profile into cpuPath and arranges an allocation profile into memPath
// (either may be ""); the returned function stops and writes them.
func startProfiles(cpuPath, memPath string) (func(), error) {
	var stops []func()
	if cpuPath != "" {
		f, err := os.Create(cpuPath)
		if err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, err
		}
		stops = append(stops, func() { pprof.StopCPUProfile(); f.Close() })
	}
	if memPath != "" {
		stops = append(stops, func() {
			runtime.GC()
			f, err := os.Create(memPath)
			if err == nil {
				err = errors.Join(pprof.Lookup("allocs").WriteTo(f, 0), f.Close())
			}
			if err != nil {
				os.Stderr.WriteString("memprofile: " + err.Error() + "\n")
			}
		})
	}
	return func() {
		for _, stop := range stops {
			stop()
		}
	}, nil
}
