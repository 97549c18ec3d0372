//go:build !unix

package benchrepo

import (
	"os"
	"time"
)

// processCPU is not measured on this system: benchmarks report 0 cpu-s/op.
func processCPU() time.Duration { return 0 }

// childMaxRSS is not measured on this system.
func childMaxRSS(*os.ProcessState) int64 { return 0 }
