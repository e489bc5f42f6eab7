package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Readiness reports why the service cannot take work, or nil.
type Readiness func(ctx context.Context) error

// NewHTTPHandler serves /healthz (the process runs), /readyz (Postgres and
// NATS reachable, consumers bound), /metrics (Prometheus) and the HTTP API
// under /api/v1 (api; nil leaves it out).
func NewHTTPHandler(m *Metrics, ready Readiness, api *API) http.Handler {
	mux := http.NewServeMux()
	if api != nil {
		api.Register(mux)
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
		defer cancel()
		if err := ready(ctx); err != nil {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "not ready", "reason": err.Error()})
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{}))
	if api == nil {
		return mux
	}
	return answerUnroutedWithProblems(mux)
}

// answerUnroutedWithProblems answers the API requests its routes never
// see with RFC 9457 problems, as the routes answer theirs: a path no route
// has (404), a method its route does not take (405, with the mux's Allow
// header), and a path or query holding U+0000, which no text may carry
// and Postgres cannot store (400, naming where).
func answerUnroutedWithProblems(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != APIPrefix && !strings.HasPrefix(r.URL.Path, APIPrefix+"/") {
			mux.ServeHTTP(w, r)
			return
		}
		if where, found := nulInRequest(r); found {
			msg := "the request's " + where + " holds U+0000 (NUL), which no text may carry"
			writeProblem(w, newProblem(http.StatusBadRequest, msg, &huma.ErrorDetail{Location: where, Message: msg}))
			return
		}
		if _, pattern := mux.Handler(r); pattern == "" {
			w = &unroutedProblem{ResponseWriter: w, method: r.Method, path: r.URL.Path}
		}
		mux.ServeHTTP(w, r)
	})
}

// nulInRequest names the first part of a request's path or query that
// holds U+0000, in the API's locations (path, query.<name>).
func nulInRequest(r *http.Request) (where string, found bool) {
	if strings.ContainsRune(r.URL.Path, 0) {
		return "path", true
	}
	if !strings.Contains(r.URL.RawQuery, "%00") && !strings.ContainsRune(r.URL.RawQuery, 0) {
		return "", false
	}
	query := r.URL.Query()
	names := make([]string, 0, len(query))
	for name := range query {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if strings.ContainsRune(name, 0) || slices.ContainsFunc(query[name], func(v string) bool { return strings.ContainsRune(v, 0) }) {
			return "query." + strings.ReplaceAll(name, "\x00", ""), true
		}
	}
	return "query", true
}

// unroutedProblem turns the mux's plain-text 404 and 405 into problems;
// the mux has already set the Allow header of a 405.
type unroutedProblem struct {
	http.ResponseWriter
	method, path string
	answered     bool
}

func (u *unroutedProblem) WriteHeader(status int) {
	if status < http.StatusBadRequest {
		u.ResponseWriter.WriteHeader(status)
		return
	}
	msg := "no route of the API is at " + u.path
	if status == http.StatusMethodNotAllowed {
		msg = u.path + " does not take " + u.method + "; it takes " + u.Header().Get("Allow")
	}
	u.answered = true
	writeProblem(u.ResponseWriter, newProblem(status, msg))
}

func (u *unroutedProblem) Write(b []byte) (int, error) {
	if u.answered {
		return len(b), nil // the mux's plain-text body, replaced
	}
	return u.ResponseWriter.Write(b)
}

func writeProblem(w http.ResponseWriter, p huma.StatusError) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(p.GetStatus())
	_ = json.NewEncoder(w).Encode(p)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
