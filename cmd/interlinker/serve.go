package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/interlinker/interlinker/service"
	"github.com/interlinker/interlinker/store"
)

func serve(ctx context.Context, args []string) error {
	cfg := service.DefaultConfig()
	logLevel := "info"
	s := &settings{fs: flag.NewFlagSet("serve", flag.ContinueOnError)}
	serviceFlags(s, &cfg, &logLevel)
	if err := s.finish(args, &cfg, logLevel); err != nil {
		return err
	}
	svc, err := service.Start(ctx, cfg)
	if err != nil {
		return err
	}
	select {
	case <-ctx.Done():
		slog.Info("signal received; shutting down")
	case err := <-svc.Done():
		slog.Error("router stopped", "err", err)
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.ShutdownTimeout+15*time.Second)
	defer cancel()
	return svc.Shutdown(shutdownCtx)
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
