package handlers

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/interlinker/interlinker/store"
)

// outboxScrapeTimeout bounds the outbox read of one scrape, so a slow
// database delays /metrics by at most this much.
const outboxScrapeTimeout = 2 * time.Second

// OutboxCollector reports the outbox gauges from one read per scrape,
// however many gauges that read fills. When the read fails every gauge
// reports -1, so a dashboard tells "unknown" from "empty".
type OutboxCollector struct {
	read                    func(context.Context) (store.OutboxStatus, error)
	waiting, oldest, parked *prometheus.Desc
}

// NewOutboxCollector returns a collector that calls read once per scrape.
func NewOutboxCollector(read func(context.Context) (store.OutboxStatus, error)) *OutboxCollector {
	return &OutboxCollector{
		read: read,
		waiting: prometheus.NewDesc("interlinker_outbox_waiting",
			"Events in the outbox not yet published, those waiting to retry included (-1: unknown).", nil, nil),
		oldest: prometheus.NewDesc("interlinker_outbox_oldest_seconds",
			"Age of the oldest unpublished event (-1: unknown).", nil, nil),
		parked: prometheus.NewDesc("interlinker_outbox_parked",
			"Events NATS refused for good, parked until an operator requeues them (-1: unknown).", nil, nil),
	}
}

// Describe implements prometheus.Collector.
func (c *OutboxCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.waiting
	ch <- c.oldest
	ch <- c.parked
}

// Collect implements prometheus.Collector.
func (c *OutboxCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), outboxScrapeTimeout)
	defer cancel()
	waiting, oldest, parked := -1.0, -1.0, -1.0
	if st, err := c.read(ctx); err == nil {
		waiting, oldest, parked = float64(st.Waiting), st.Oldest.Seconds(), float64(st.Parked)
	}
	ch <- prometheus.MustNewConstMetric(c.waiting, prometheus.GaugeValue, waiting)
	ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, oldest)
	ch <- prometheus.MustNewConstMetric(c.parked, prometheus.GaugeValue, parked)
}

// NewUnsettledGauge reports the pages changed since their site last
// settled (store.Store.Unsettled), read once per scrape: 0 once every
// site has settled, and -1 when the read fails. A producer waiting for
// its site's final links.inserted waits for it to reach 0, or for the
// site's "site settled" log line.
func NewUnsettledGauge(read func(context.Context) (int, error)) prometheus.Collector {
	return scrapedGauge("interlinker_unsettled_pages",
		"Pages changed since their site's last settle pass; 0 when every site has settled (-1: unknown).",
		func(ctx context.Context) (float64, error) {
			n, err := read(ctx)
			return float64(n), err
		})
}

// NewIdleGauge reports 1 when the pipeline has nothing left to do
// (service.Service.Idle: every consumer has acknowledged all it was sent,
// an event waiting for state not yet known included; the outbox is empty;
// no recount or job waits; every site has settled and no settle pass is
// under way), 0 while it has, and -1 when the read fails.
// interlinker_unsettled_pages alone read 0 while a pet-health trial's
// pages still waited for their site, which had not arrived: no page of
// theirs was known yet.
func NewIdleGauge(idle func(context.Context) (bool, error)) prometheus.Collector {
	return scrapedGauge("interlinker_pipeline_idle",
		"1 when no event waits or is in hand, the outbox is empty and every site has settled; 0 otherwise (-1: unknown).",
		func(ctx context.Context) (float64, error) {
			ok, err := idle(ctx)
			if ok {
				return 1, err
			}
			return 0, err
		})
}

// scrapedGauge is a gauge read once per scrape, within
// outboxScrapeTimeout; -1 when the read fails.
func scrapedGauge(name, help string, read func(context.Context) (float64, error)) prometheus.Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), outboxScrapeTimeout)
		defer cancel()
		v, err := read(ctx)
		if err != nil {
			return -1
		}
		return v
	})
}
