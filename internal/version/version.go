// Package version names the build: the module version stamped at link time
// (`-ldflags "-X formation/internal/version.Module=v…"`), which is part of
// every stage's code identity in the stage cache.
package version

import "runtime/debug"

// Module is set by the linker; when it is not, the module version recorded by
// the Go toolchain is used.
var Module = ""

// String returns the module version of this build.
func String() string {
	if Module != "" {
		return Module
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" {
		return info.Main.Version
	}
	return "(devel)"
}
