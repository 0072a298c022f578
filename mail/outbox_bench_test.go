package mail_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"seald.dev/seald/mail"
)

// BenchmarkOutboxSendParallel sends distinct records' messages from 16 goroutines per CPU, as the pipeline's
// notify workers do, each Send returning once its message is durable. b.N is the number of messages. Beside
// the wall time it reports the process's CPU time (user and system) per message, since the CPU spent, not
// the disk, is what the outbox took from the rest of the pipeline.
func BenchmarkOutboxSendParallel(b *testing.B) {
	o, err := mail.NewOutbox(filepath.Join(b.TempDir(), "outbox"), testFrom)
	if err != nil {
		b.Fatal(err)
	}
	defer o.Close()
	var n atomic.Int64
	b.SetParallelism(16)
	cpu0 := cpuTime(b)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m := htmlMail()
			m.Reference = fmt.Sprintf("D-%08d-0000-4000-8000-000000000000", n.Add(1))
			if _, err := o.Send(context.Background(), m); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the CPU time the process has used so far, user and system.
func cpuTime(b *testing.B) time.Duration {
	b.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
