package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
)

// PeerRun is the peer row of the intake section: the same number of entries, of the same size, appended
// durably by the same number of concurrent writers to a Trillian-Tessera log with its POSIX driver, measured
// in the same run by tools/tessera (tessera-peer), a program of its own so that Tessera's modules stay out
// of seald's. Rate, latencies and CPU are what that program measured; nothing here is a quoted figure.
type PeerRun struct {
	Name      string  `json:"name"`
	Version   string  `json:"version"`
	Entries   int     `json:"entries"`
	Writers   int     `json:"writers"`
	Bytes     int     `json:"entry_bytes"`
	Seconds   float64 `json:"seconds"`
	Rate      float64 `json:"rate"`
	P50ms     float64 `json:"p50_ms"`
	P99ms     float64 `json:"p99_ms"`
	CPUSecs   float64 `json:"cpu_seconds"`
	Errors    int64   `json:"errors"`
	Batch     uint    `json:"batch_size"`
	AgeMS     float64 `json:"batch_max_age_ms"`
	TreeSize  uint64  `json:"tree_size"`
	NotRunWhy string  `json:"not_run,omitempty"`
	// Beside is the intake run it was measured beside (the store's name).
	Beside string `json:"beside"`
}

// runPeer appends as many entries as in was accepted, of its request size, with its connections as writers.
func runPeer(ctx context.Context, cfg Config, in *IntakeRun) *PeerRun {
	p := &PeerRun{Name: "Trillian-Tessera, POSIX driver", Beside: in.Store}
	if cfg.Tessera == "" {
		p.NotRunWhy = "no tessera-peer binary: `make bench` builds it (scripts/peers.sh tessera) and passes --tessera"
		return p
	}
	dir, err := os.MkdirTemp("", "seald-bench-tessera-")
	if err != nil {
		p.NotRunWhy = err.Error()
		return p
	}
	defer os.RemoveAll(dir)
	n := max(int(in.Accepted), 1)
	cmd := exec.CommandContext(ctx, cfg.Tessera, "-dir", dir+"/log", "-n", strconv.Itoa(n),
		"-writers", strconv.Itoa(in.Conns), "-size", strconv.Itoa(in.RequestBytes))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		p.NotRunWhy = fmt.Sprintf("tessera-peer failed: %v: %s", err, lastLine(errb.Bytes()))
		return p
	}
	if err := json.Unmarshal(out.Bytes(), p); err != nil {
		p.NotRunWhy = fmt.Sprintf("tessera-peer answered %q: %v", out.String(), err)
		return p
	}
	p.Name, p.Beside = "Trillian-Tessera "+p.Version+", POSIX driver", in.Store
	fmt.Fprintf(cfg.Log, "bench: peer %s: %d entries, %d writers: %.0f/s p99 %.1f ms\n", p.Name, p.Entries,
		p.Writers, p.Rate, p.P99ms)
	return p
}

func lastLine(b []byte) string {
	b = bytes.TrimSpace(b)
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	return string(b)
}
