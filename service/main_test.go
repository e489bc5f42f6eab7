package service

import (
	"flag"
	"fmt"
	"os"
	"testing"
)

// testParallel is how many of this package's tests run at once unless
// -parallel says otherwise. Its end-to-end tests spend much of their time
// waiting on the pipeline (settle delays, idle polls, redeliveries), so
// two at a time, Go's default on a 2-core machine, left a quarter of the
// CPU idle: CI's run of 2026-11-28 used 1.48 cores of 2 and service/
// took 1,055 s of its 18-minute timeout. Each test's service holds up to
// 16 Postgres connections (testConfig); .ci/run checks there are enough.
const testParallel = "3"

func TestMain(m *testing.M) {
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "test.parallel" {
			explicit = true
		}
	})
	if !explicit {
		if err := flag.Set("test.parallel", testParallel); err != nil {
			fmt.Fprintln(os.Stderr, "set test.parallel:", err)
			os.Exit(2)
		}
	}
	os.Exit(m.Run())
}
