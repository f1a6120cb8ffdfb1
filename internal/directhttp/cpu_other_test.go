//go:build !unix

package directhttp

import "time"

// processCPU is not measured here: the benchmark then reports no cpu-ns/op.
func processCPU() time.Duration { return 0 }
