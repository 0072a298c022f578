package bench

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Machine is what the figures were measured on.
type Machine struct {
	CPU       string `json:"cpu"`
	Cores     int    `json:"cores"`
	MemoryMB  int    `json:"memory_mb"`
	GoVersion string `json:"go_version"`
	OS        string `json:"os"`
	Commit    string `json:"git_commit,omitempty"`
	Date      string `json:"date"`
}

func machine(ctx context.Context) Machine {
	m := Machine{
		Cores: runtime.NumCPU(), GoVersion: runtime.Version(), OS: runtime.GOOS + "/" + runtime.GOARCH,
		Date: time.Now().UTC().Format(time.RFC3339),
	}
	m.CPU = procField("/proc/cpuinfo", "model name")
	if kb, err := strconv.Atoi(strings.Fields(procField("/proc/meminfo", "MemTotal") + " 0")[0]); err == nil {
		m.MemoryMB = kb / 1024
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				m.Commit = s.Value
			}
		}
	}
	if m.Commit == "" {
		// go run does not stamp the revision; ask git, if there is one.
		if out, err := exec.CommandContext(ctx, "git", "rev-parse", "HEAD").Output(); err == nil {
			m.Commit = strings.TrimSpace(string(out))
		}
	}
	return m
}

// procField returns the value of the first "name: value" line of a /proc file, or "".
func procField(path, name string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// peakRSS tracks this process's peak resident set (VmHWM). Reset returns the heap the previous step left to
// the OS and restarts the peak (Linux's clear_refs "5"), so each load gets its own peak; where that is not
// possible the peak is the process's since it started, and Resettable says so.
type peakRSS struct{ Resettable bool }

func (p *peakRSS) Reset() {
	runtime.GC()
	debug.FreeOSMemory()
	p.Resettable = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// MB returns the peak since the last Reset in MB, 0 when unknown (not Linux).
func (p *peakRSS) MB() float64 {
	f := strings.Fields(procField("/proc/self/status", "VmHWM"))
	if len(f) == 0 {
		return 0
	}
	kb, _ := strconv.ParseFloat(f[0], 64)
	return kb / 1024
}

// cpuMeter measures the share of the machine's cores this process used between start and share, and how
// busy the whole machine was (other processes included: PostgreSQL, other programs on a shared machine).
type cpuMeter struct {
	mu         sync.Mutex
	wall       time.Time
	used       time.Duration
	busy, all  uint64 // /proc/stat jiffies at start
	machineUse float64
}

// procStat returns the busy and total jiffies of all cores from /proc/stat (0, 0 when unknown).
func procStat() (busy, total uint64) {
	f := strings.Fields(procLine("/proc/stat", "cpu "))
	for i, v := range f {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || i >= 8 { // user nice system idle iowait irq softirq steal
			continue
		}
		total += n
		if i != 3 && i != 4 {
			busy += n
		}
	}
	return busy, total
}

func procLine(path, prefix string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			return rest
		}
	}
	return ""
}

// machineShare returns the share of the machine's cores busy between start and share, all processes.
func (c *cpuMeter) machineShare() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.machineUse
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func (c *cpuMeter) start() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wall, c.used = time.Now(), cpuTime()
	c.busy, c.all = procStat()
}

func (c *cpuMeter) share() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.wall.IsZero() {
		return 0
	}
	wall := time.Since(c.wall)
	if busy, all := procStat(); all > c.all {
		c.machineUse = float64(busy-c.busy) / float64(all-c.all)
	}
	return float64(cpuTime()-c.used) / float64(wall) / float64(runtime.NumCPU())
}
