//go:build linux && !js

package tensor

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// DefaultLimit is half of the memory the kernel reports available
// (MemAvailable in /proc/meminfo), a fair share that leaves room for the
// inputs, the readback and everything else on the machine; 4 GiB when
// /proc/meminfo cannot be read.
func DefaultLimit() Limit {
	const hint = "; --max-bytes or " + MaxBytesEnv + " sets another"
	if kb, ok := memAvailableKiB(); ok {
		return Limit{kb * 1024 / 2, "half of the " + FormatBytes(kb*1024) + " available" + hint}
	}
	return Limit{4 << 30, "the default" + hint}
}

func memAvailableKiB() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "MemAvailable:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb, err == nil && kb > 0
		}
	}
	return 0, false
}
