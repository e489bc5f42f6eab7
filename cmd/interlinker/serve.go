package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"

	"github.com/interlinker/interlinker/service"
	"github.com/interlinker/interlinker/store"
)

func serve(ctx context.Context, args []string) error {
	cfg := service.DefaultConfig()
	logLevel := "info"
	embedded := false
	s := &settings{fs: flag.NewFlagSet("serve", flag.ContinueOnError)}
	serviceFlags(s, &cfg, &logLevel)
	s.Bool(&embedded, "embedded-nats", "run a private JetStream server in this process (one replica, local use) instead of --nats-url")
	if err := s.finish(args, &cfg, logLevel); err != nil {
		return err
	}
	if err := natsChoice(cfg.NATSURL, embedded); err != nil {
		return err
	}
	svc, err := service.Start(ctx, cfg)
	if err != nil {
		if ctx.Err() != nil {
			// Stopped while starting (a rolling restart can signal a
			// replica still waiting for its database or NATS): a stop
			// asked for, not a failure. Start stopped what it had begun.
			slog.Info("signal received while starting; stopped", "err", err)
			return nil
		}
		return err
	}
	select {
	case <-ctx.Done():
		slog.Info("signal received; shutting down")
	case err := <-svc.Done():
		slog.Error("router stopped", "err", err)
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.ShutdownTimeout)
	defer cancel()
	return svc.Shutdown(shutdownCtx)
}

// natsChoice enforces the production start-up rule: replicas must share one
// NATS, so serve needs --nats-url, unless --embedded-nats asks for a
// private server on purpose.
func natsChoice(natsURL string, embedded bool) error {
	switch {
	case natsURL != "" && embedded:
		return errors.New("give either --nats-url or --embedded-nats, not both")
	case natsURL == "" && !embedded:
		return errors.New("serve needs --nats-url (the NATS every replica shares); --embedded-nats runs a private server for local use")
	}
	return nil
}

func migrate(ctx context.Context, args []string) error {
	cfg := service.DefaultConfig()
	s := &settings{fs: flag.NewFlagSet("migrate", flag.ContinueOnError)}
	s.String(&cfg.DatabaseURL, "database-url", "PostgreSQL URL; the database is created if missing")
	if err := s.finish(args, nil, ""); err != nil {
		return err
	}
	st, err := store.Open(ctx, cfg.DatabaseURL, store.Options{})
	if err != nil {
		return err
	}
	st.Close()
	fmt.Println("database is up to date")
	return nil
}
