package js

import "github.com/dnecho/dnecho/engine/js/loader"

// The loader's names for a test's files, as the callers of Load know them.
type (
	// FileSystem is where a test's local files come from: the disk, or an archive.
	FileSystem = loader.FileSystem
	// RemoteModules gives the source of an https:// module, from the network, a cache or an
	// archive.
	RemoteModules = loader.RemoteModules
	// File is one file a test loaded (Script.Files).
	File = loader.File
)
