package main

import (
	"strings"
	"testing"
	"time"
)

func TestSoakVerdict(t *testing.T) {
	series := func(grow int64) []soakSample {
		var s []soakSample
		for i := int64(0); i < 40; i++ {
			// A sawtooth like a GC cycle, plus grow per sample.
			s = append(s, soakSample{At: time.Duration(i) * 15 * time.Second, RSSKiB: 40<<10 + (i%3)<<10, HeapInuse: 10<<20 + (i%4)<<20,
				AnonKiB: 20<<10 + (i%3)<<10, FileKiB: 20<<10 + i<<10, JournalBytes: i << 20,
				Goroutines: 30 + i%5 + grow*i, FDs: 20 + i%2})
		}
		return s
	}
	if flat, lines := soakVerdict(series(0), time.Minute); !flat {
		t.Errorf("a sawtooth without growth judged growing:\n%s", strings.Join(lines, "\n"))
	}
	var flat bool
	var lines []string
	grow := series(0)
	for i := range grow {
		grow[i].HeapInuse += int64(i) << 20
	}
	if flat, lines = soakVerdict(grow, time.Minute); flat || !strings.Contains(strings.Join(lines, "\n"), "heap in use: GROWING") {
		t.Errorf("1 MiB more heap per sample judged flat:\n%s", strings.Join(lines, "\n"))
	}
	// A mapping that outgrows the journal file is growth.
	leak := series(0)
	for i := range leak {
		leak[i].JournalBytes = 0
	}
	flat, lines = soakVerdict(leak, time.Minute)
	if flat || !strings.Contains(strings.Join(lines, "\n"), "RSS file beyond data_dir: GROWING") {
		t.Errorf("file-backed pages growing without the journal judged flat:\n%s", strings.Join(lines, "\n"))
	}
	if flat, _ := soakVerdict(series(0)[:5], time.Minute); flat {
		t.Error("one sample after warm-up judged flat")
	}
}

func TestDrainVerdict(t *testing.T) {
	idle := soakSample{Goroutines: 13, FDs: 14}
	if flat, lines := drainVerdict(idle, soakSample{Goroutines: 30, FDs: 20}); !flat {
		t.Errorf("drained within the slack judged not back to idle:\n%s", strings.Join(lines, "\n"))
	}
	flat, lines := drainVerdict(idle, soakSample{Goroutines: 188, FDs: 20})
	if flat || !strings.Contains(strings.Join(lines, "\n"), "goroutines: NOT BACK TO IDLE") {
		t.Errorf("175 goroutines left after the load judged back to idle:\n%s", strings.Join(lines, "\n"))
	}
	if flat, _ := drainVerdict(idle, soakSample{Goroutines: 13, FDs: 60}); flat {
		t.Error("46 fds left after the load judged back to idle")
	}
}
