//go:build unix

package benchrepo

import (
	"os"
	"syscall"
	"time"
)

// processCPU is the CPU time (user and system, all threads) this process has
// used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// childMaxRSS is wait4's peak RSS of a finished child, in KiB (Linux's unit;
// see RunMeasured for what it counts).
func childMaxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}
