package service

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/interlinker/interlinker/events"
)

// BenchmarkPipelineVsRawJetStream pushes b.N content.generated events through
// plan → inject → validate → links.inserted, then the same number of messages
// of the same size through a bare JetStream publish → pull-consume → ack loop
// on the same embedded server, and reports both rates and their ratio.
//
//	go test -run '^$' -bench PipelineVsRaw -benchtime 2000x ./service/
func BenchmarkPipelineVsRawJetStream(b *testing.B) {
	cfg := testConfig(b)
	if w := os.Getenv("INTERLINKER_BENCH_WORKERS"); w != "" {
		fmt.Sscan(w, &cfg.Workers)
	}
	if c := os.Getenv("INTERLINKER_BENCH_CONNS"); c != "" {
		fmt.Sscan(c, &cfg.DBMaxConns)
	}
	if p := os.Getenv("INTERLINKER_BENCH_PULL"); p != "" {
		fmt.Sscan(p, &cfg.PullBuffer)
	}
	h := startHarness(b, cfg)
	h.publish(siteEvent("bench"))
	h.publish(hubEvent("bench"))
	waitFor(b, time.Minute, "hub linked", func() bool { return len(h.inserted.insertedFor(b, "bench", "boots-hub")) == 1 })

	payloads := make([][]byte, b.N)
	ids := make([]string, b.N)
	for i := range b.N {
		ev := pageEvent("bench", fmt.Sprintf("page-%07d", i), "supporting", 1, supportingHTML(i))
		raw, err := ev.Encode()
		if err != nil {
			b.Fatal(err)
		}
		payloads[i], ids[i] = raw, ev.MsgID()
	}

	if os.Getenv("INTERLINKER_BENCH_METRICS") != "" {
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			for {
				select {
				case <-stop:
					return
				case <-time.After(time.Second):
				}
				line := ""
				for _, c := range []struct{ stream, durable string }{{"CONTENT", "planner"}, {"LINKS", "injector"}, {"LINKS", "validator"}} {
					cons, err := h.js.Consumer(context.Background(), c.stream, c.durable)
					if err != nil {
						continue
					}
					info, err := cons.Info(context.Background())
					if err != nil {
						continue
					}
					line += fmt.Sprintf(" %s acked=%d pending=%d ackpending=%d", c.durable, info.AckFloor.Consumer, info.NumPending, info.NumAckPending)
				}
				n, _, _ := h.svc.Store().OutboxLag(context.Background())
				fmt.Fprintf(os.Stderr, "%s outbox=%d inserted=%d\n", line, n, h.inserted.pageCount("bench"))
			}
		}()
	}
	b.ResetTimer()
	start := time.Now()
	publishAll(b, h.js, events.ContentGenerated, payloads, ids)
	waitFor(b, 10*time.Minute, "every page linked", func() bool { return h.inserted.pageCount("bench") >= b.N+1 })
	pipeline := time.Since(start)
	b.StopTimer()
	// Every article's arrival re-plans the hub; those re-plans finish after
	// the last article is linked and are not part of the rate.
	settleStart := time.Now()
	h.waitIdle(10 * time.Minute)
	b.ReportMetric(time.Since(settleStart).Seconds(), "settle_s")

	if os.Getenv("INTERLINKER_BENCH_METRICS") != "" {
		dumpMetrics(b, h.svc.HTTPAddr())
	}
	raw := rawJetStreamLoop(b, h.js, payloads)
	pipelineRate := float64(b.N) / pipeline.Seconds()
	rawRate := float64(b.N) / raw.Seconds()
	b.ReportMetric(pipelineRate, "pages/s")
	b.ReportMetric(rawRate, "raw_msgs/s")
	b.ReportMetric(pipelineRate/rawRate, "ratio")
}

func dumpMetrics(b *testing.B, addr string) {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	sums, counts := map[string]float64{}, map[string]float64{}
	for _, line := range strings.Split(string(body), "\n") {
		var v float64
		for _, kind := range []string{"sum", "count"} {
			prefix := "interlinker_handler_seconds_" + kind + `{handler="`
			if rest, ok := strings.CutPrefix(line, prefix); ok {
				handler, value, _ := strings.Cut(rest, `"} `)
				fmt.Sscan(value, &v)
				if kind == "sum" {
					sums[handler] += v
				} else {
					counts[handler] += v
				}
			}
		}
	}
	for h, c := range counts {
		fmt.Fprintf(os.Stderr, "%s: %.0f events, mean %.2f ms\n", h, c, 1000*sums[h]/c)
	}
}

func publishAll(b *testing.B, js jetstream.JetStream, subject string, payloads [][]byte, ids []string) {
	b.Helper()
	for i, p := range payloads {
		msg := &nats.Msg{Subject: subject, Data: p, Header: nats.Header{}}
		if ids != nil {
			msg.Header.Set(nats.MsgIdHdr, ids[i])
		}
		if _, err := js.PublishMsgAsync(msg); err != nil {
			b.Fatal(err)
		}
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-time.After(time.Minute):
		b.Fatal("publish did not complete")
	}
}

// rawJetStreamLoop is the baseline: the bus alone, no Postgres, no handlers.
func rawJetStreamLoop(b *testing.B, js jetstream.JetStream, payloads [][]byte) time.Duration {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	stream, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: "BENCH", Subjects: []string{"bench.>"}, Storage: jetstream.FileStorage})
	if err != nil {
		b.Fatal(err)
	}
	defer js.DeleteStream(context.Background(), "BENCH")
	cons, err := stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{Durable: "bench", AckPolicy: jetstream.AckExplicitPolicy})
	if err != nil {
		b.Fatal(err)
	}
	var acked atomic.Int64
	done := make(chan struct{})
	start := time.Now()
	cc, err := cons.Consume(func(m jetstream.Msg) {
		if err := m.DoubleAck(ctx); err != nil {
			b.Error(err)
		}
		if acked.Add(1) == int64(len(payloads)) {
			close(done)
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	defer cc.Stop()
	publishAll(b, js, "bench.page", payloads, nil)
	select {
	case <-done:
	case <-ctx.Done():
		b.Fatal("raw loop did not finish")
	}
	return time.Since(start)
}
