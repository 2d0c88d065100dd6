package xdnecho

import "github.com/dnecho/dnecho/engine/js/modules"

// ImportPath is the name scripts import the module by.
const ImportPath = "k6/x/dnecho"

// Factory returns the module factory a runner registers under ImportPath (runner.Config.Modules):
// each test run gets a fresh Root with the given cluster defaults. The runner closes the Root
// when the test ends.
func Factory(d Defaults) modules.Factory {
	return func() modules.Module { return New(d) }
}
