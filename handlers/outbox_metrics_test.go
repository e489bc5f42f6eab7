package handlers

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/interlinker/interlinker/store"
)

func outboxValues(t *testing.T, m *Metrics) map[string]float64 {
	t.Helper()
	families, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		for _, mt := range f.GetMetric() {
			switch {
			case mt.GetGauge() != nil:
				got[f.GetName()] = mt.GetGauge().GetValue()
			case mt.GetCounter() != nil:
				got[f.GetName()] += mt.GetCounter().GetValue()
			}
		}
	}
	return got
}

func TestOutboxGaugesComeFromOneReadPerScrape(t *testing.T) {
	reads := 0
	var fail error
	m := NewMetrics()
	m.Registry.MustRegister(NewOutboxCollector(func(context.Context) (store.OutboxStatus, error) {
		reads++
		return store.OutboxStatus{Waiting: 3, Oldest: 1500 * time.Millisecond, Parked: 2}, fail
	}))
	m.OutboxParked.WithLabelValues("links.inserted").Inc()
	got := outboxValues(t, m)
	for name, want := range map[string]float64{"interlinker_outbox_waiting": 3, "interlinker_outbox_oldest_seconds": 1.5,
		"interlinker_outbox_parked": 2, "interlinker_outbox_parked_total": 1} {
		if got[name] != want {
			t.Errorf("%s = %v, want %v", name, got[name], want)
		}
	}
	if reads != 1 {
		t.Errorf("one scrape read the outbox %d times", reads)
	}
	fail = errors.New("database away")
	got = outboxValues(t, m)
	for _, name := range []string{"interlinker_outbox_waiting", "interlinker_outbox_oldest_seconds", "interlinker_outbox_parked"} {
		if got[name] != -1 {
			t.Errorf("with the read failing %s = %v, want -1", name, got[name])
		}
	}
}
