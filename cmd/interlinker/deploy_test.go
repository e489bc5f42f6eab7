package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/nats-io/nats-server/v2/server"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/interlinker/interlinker/handlers"
)

// The deploy/ files name verbs, flags and INTERLINKER_* variables of this
// binary, HTTP paths it serves and images. There is no container engine
// here, so these tests read the files with the parsers their tools use
// (compose-go, the Kubernetes API types, nats-server's configuration
// parser) and hold every name they use to what the binary has: each verb's
// flags are read from its real -h output.

const deployDir = "../../deploy"

// helpFlag is one flag a verb's -h lists.
type helpFlag struct {
	isBool bool
	usage  string
}

// verbHelp runs `interlinker ARGS... -h` and returns the flags its help
// lists. ok is false when the binary has no such verb.
func verbHelp(t *testing.T, args ...string) (flags map[string]helpFlag, ok bool) {
	t.Helper()
	out, err := captureOutput(t, func() error { return run(append(slices.Clone(args), "-h")) })
	if err != nil && strings.Contains(err.Error(), "unknown verb") {
		return nil, false
	}
	if err != nil && !errors.Is(err, flag.ErrHelp) && !strings.Contains(out, "  -") {
		return map[string]helpFlag{}, true // a verb without flags (openapi)
	}
	return parseHelp(out), true
}

// parseHelp reads flag.PrintDefaults' output: "  -name type" (no type for
// a bool), then the usage on the same line after a tab or on the lines
// below.
func parseHelp(out string) map[string]helpFlag {
	flags := map[string]helpFlag{}
	var current string
	for line := range strings.SplitSeq(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "  -"); ok {
			head, usage, _ := strings.Cut(rest, "\t")
			fields := strings.Fields(head)
			if len(fields) == 0 {
				continue
			}
			current = fields[0]
			flags[current] = helpFlag{isBool: len(fields) == 1, usage: strings.TrimSpace(usage)}
			continue
		}
		if current != "" && strings.HasPrefix(line, "    ") {
			f := flags[current]
			f.usage = strings.TrimSpace(f.usage + " " + strings.TrimSpace(line))
			flags[current] = f
		}
	}
	return flags
}

// captureOutput runs fn with standard output and error going to a pipe and
// returns what it wrote.
func captureOutput(t *testing.T, fn func() error) (string, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr := os.Stdout, os.Stderr
	os.Stdout, os.Stderr = w, w
	done := make(chan string)
	go func() {
		var b bytes.Buffer
		_, _ = io.Copy(&b, r)
		done <- b.String()
	}()
	runErr := fn()
	os.Stdout, os.Stderr = stdout, stderr
	w.Close()
	return <-done, runErr
}

// usageVerbs lists the verbs (and token's actions) the top-level usage
// names.
func usageVerbs() [][]string {
	var verbs [][]string
	for _, m := range regexp.MustCompile(`(?m)^  interlinker ([\w-]+)(?:\s+([\w-]+(?:\|[\w-]+)+))?`).FindAllStringSubmatch(usage, -1) {
		if m[2] == "" {
			verbs = append(verbs, []string{m[1]})
			continue
		}
		for action := range strings.SplitSeq(m[2], "|") {
			verbs = append(verbs, []string{m[1], action})
		}
	}
	return verbs
}

func TestDeployEveryFlagOfEveryVerbHasItsVariableAndHelpShowsBoth(t *testing.T) {
	verbs := usageVerbs()
	if len(verbs) < 8 {
		t.Fatalf("usage names only %v", verbs)
	}
	for _, verb := range verbs {
		flags, ok := verbHelp(t, verb...)
		if !ok {
			t.Errorf("usage names verb %v, which the binary does not run", verb)
			continue
		}
		for name, f := range flags {
			if want := "(env " + envName(name) + ")"; !strings.Contains(f.usage, want) {
				t.Errorf("interlinker %s -h: --%s does not show %s: %q", strings.Join(verb, " "), name, want, f.usage)
			}
		}
	}

	// A flag registered on the flag set directly reads its variable too.
	t.Setenv("INTERLINKER_ALL_SITES", "true")
	t.Setenv("INTERLINKER_SITE", "from-env")
	if err := run([]string{"audit"}); err == nil || !strings.Contains(err.Error(), "--all-sites requests an audit of every site") {
		t.Errorf("INTERLINKER_ALL_SITES and INTERLINKER_SITE were not read: %v", err)
	}
	t.Setenv("INTERLINKER_ALL_SITES", "maybe")
	if err := run([]string{"audit"}); err == nil || !strings.Contains(err.Error(), "INTERLINKER_ALL_SITES") {
		t.Errorf("a bad INTERLINKER_ALL_SITES: %v, want it refused by name", err)
	}
}

func TestDeployStreamReplicasFlagNeedsAClusterAndStaysInJetStreamsRange(t *testing.T) {
	cfg, err := parseServiceFlags("--nats-url", "nats://nats:4222", "--stream-replicas", "3")
	if err != nil || cfg.StreamReplicas != 3 {
		t.Fatalf("--stream-replicas 3: %d, %v", cfg.StreamReplicas, err)
	}
	if cfg, err := parseServiceFlags(); err != nil || cfg.StreamReplicas != 1 {
		t.Errorf("default stream replicas %d, %v; want 1", cfg.StreamReplicas, err)
	}
	for _, args := range [][]string{
		{"--stream-replicas", "3"}, // an embedded server is one node
		{"--nats-url", "nats://nats:4222", "--stream-replicas", "0"},
		{"--nats-url", "nats://nats:4222", "--stream-replicas", "6"},
	} {
		if _, err := parseServiceFlags(args...); err == nil || !strings.Contains(err.Error(), "stream-replicas") {
			t.Errorf("%v: %v, want it refused", args, err)
		}
	}
	t.Setenv("INTERLINKER_STREAM_REPLICAS", "5")
	if cfg, err := parseServiceFlags("--nats-url", "nats://nats:4222"); err != nil || cfg.StreamReplicas != 5 {
		t.Errorf("INTERLINKER_STREAM_REPLICAS=5 gave %d, %v", cfg.StreamReplicas, err)
	}
}

func TestDeployHealthVerbAsksServesReadiness(t *testing.T) {
	ready := true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/readyz" && ready {
			_, _ = io.WriteString(w, `{"status":"ready"}`)
			return
		}
		http.Error(w, `{"status":"not ready"}`, http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	if out, err := captureOutput(t, func() error { return run([]string{"health", "--http-addr", ":" + port}) }); err != nil || !strings.Contains(out, "ready") {
		t.Errorf("health of a ready serve: %q, %v", out, err)
	}
	ready = false
	t.Setenv("INTERLINKER_HTTP_ADDR", "0.0.0.0:"+port)
	if err := run([]string{"health"}); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("health of a serve not ready: %v, want the 503", err)
	}
	for addr, want := range map[string]string{":8090": "http://127.0.0.1:8090/readyz", "[::]:8090": "http://127.0.0.1:8090/readyz",
		"10.1.2.3:9000": "http://10.1.2.3:9000/readyz"} {
		if got, err := healthURL(addr, "/readyz"); err != nil || got != want {
			t.Errorf("healthURL(%q) = %q, %v; want %q", addr, got, err, want)
		}
	}
}

// deployChecker holds what the binary offers, to check deploy files against.
type deployChecker struct {
	t     *testing.T
	verbs map[string]map[string]helpFlag // "audit", "token create" → flags
	http  http.Handler
}

func newDeployChecker(t *testing.T) *deployChecker {
	return &deployChecker{t: t, verbs: map[string]map[string]helpFlag{},
		http: handlers.NewHTTPHandler(handlers.NewMetrics(), func(context.Context) error { return nil }, nil)}
}

// flagsOf returns a verb's flags; ok is false when the binary has no such verb.
func (c *deployChecker) flagsOf(verb ...string) (map[string]helpFlag, bool) {
	key := strings.Join(verb, " ")
	if f, ok := c.verbs[key]; ok {
		return f, f != nil
	}
	f, ok := verbHelp(c.t, verb...)
	c.verbs[key] = f
	return f, ok
}

// checkCommand reports what in a command line (verb, flags) and its
// environment (INTERLINKER_* names) the binary does not have.
func (c *deployChecker) checkCommand(where string, args []string, env []string) {
	c.t.Helper()
	if len(args) == 0 {
		c.t.Errorf("%s: no verb given", where)
		return
	}
	verb := args[:1]
	if args[0] == "token" && len(args) > 1 {
		verb = args[:2]
	}
	flags, ok := c.flagsOf(verb...)
	if !ok {
		c.t.Errorf("%s: runs `interlinker %s`, a verb the binary does not have", where, strings.Join(verb, " "))
		return
	}
	rest := args[len(verb):]
	for i := 0; i < len(rest); i++ {
		arg := rest[i]
		if !strings.HasPrefix(arg, "-") {
			c.t.Errorf("%s: unexpected argument %q to interlinker %s", where, arg, strings.Join(verb, " "))
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		f, ok := flags[name]
		if !ok {
			c.t.Errorf("%s: interlinker %s has no flag --%s", where, strings.Join(verb, " "), name)
			continue
		}
		if !f.isBool && !hasValue {
			if i+1 >= len(rest) {
				c.t.Errorf("%s: --%s has no value", where, name)
				continue
			}
			i++
			value = rest[i]
		}
		_ = value
	}
	byEnv := map[string]bool{}
	for name := range flags {
		byEnv[envName(name)] = true
	}
	for _, name := range env {
		if strings.HasPrefix(name, "INTERLINKER_") && !byEnv[name] {
			c.t.Errorf("%s: sets %s, which no flag of interlinker %s reads", where, name, strings.Join(verb, " "))
		}
	}
}

// flagValue returns the value a command line gives a flag.
func flagValue(args []string, name string) (string, bool) {
	for i, arg := range args {
		if arg == "--"+name || arg == "-"+name {
			if i+1 < len(args) {
				return args[i+1], true
			}
		}
		if v, ok := strings.CutPrefix(arg, "--"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// checkPath reports a path the service's HTTP handler does not answer with 200.
func (c *deployChecker) checkPath(where, path string) {
	c.t.Helper()
	rec := httptest.NewRecorder()
	c.http.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if rec.Code != http.StatusOK {
		c.t.Errorf("%s: GET %s answers %d from the service, want 200", where, path, rec.Code)
	}
}

// pinnedImage is a reference with a tag that holds a version number, and
// maybe a digest: no "latest", no bare name.
var pinnedImage = regexp.MustCompile(`^[a-z0-9][a-z0-9._/:-]*?:([A-Za-z0-9_.-]*[0-9][A-Za-z0-9_.-]*)(@sha256:[0-9a-f]{64})?$`)

func checkPinned(t *testing.T, where, image string) {
	t.Helper()
	m := pinnedImage.FindStringSubmatch(image)
	if m == nil || strings.Contains(m[1], "latest") {
		t.Errorf("%s: image %q is not pinned to a version (NAME:VERSION, ideally @sha256:DIGEST)", where, image)
	}
}

// imageVersion reads MAJOR.MINOR from an image's tag.
func imageVersion(image string) (major, minor int, ok bool) {
	m := regexp.MustCompile(`:v?(\d+)\.(\d+)`).FindStringSubmatch(image)
	if m == nil {
		return 0, 0, false
	}
	major, _ = strconv.Atoi(m[1])
	minor, _ = strconv.Atoi(m[2])
	return major, minor, true
}

// portOf returns the port of a listen address such as ":8090".
func portOf(t *testing.T, where, addr string) int {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	n, err2 := strconv.Atoi(p)
	if err != nil || err2 != nil {
		t.Errorf("%s: INTERLINKER_HTTP_ADDR %q has no port", where, addr)
	}
	return n
}

func TestDeployDockerfileBuildsAStaticNonRootImageOfPinnedBases(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(deployDir, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	c := newDeployChecker(t)
	var stages []string
	var final, user, entrypoint string
	var env []string
	static := false
	for line := range strings.SplitSeq(strings.ReplaceAll(string(raw), "\\\n", " "), "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		switch strings.ToUpper(fields[0]) {
		case "FROM":
			image := fields[1]
			switch {
			case image == "scratch" || slices.Contains(stages, image):
			default:
				checkPinned(t, "Dockerfile FROM", image)
			}
			if len(fields) == 4 && strings.EqualFold(fields[2], "AS") {
				stages = append(stages, fields[3])
			}
			final, user, entrypoint, env = image, "", "", nil
		case "USER":
			user = fields[1]
		case "ENTRYPOINT":
			entrypoint = strings.Join(fields[1:], " ")
		case "ENV":
			for _, kv := range fields[1:] {
				name, _, _ := strings.Cut(kv, "=")
				env = append(env, name)
			}
		case "RUN":
			if strings.Contains(line, "CGO_ENABLED=0") && strings.Contains(line, "go build") {
				static = true
			}
		}
	}
	if !static {
		t.Error("Dockerfile: no `CGO_ENABLED=0 go build`: the binary would not be static")
	}
	if final != "scratch" && !strings.HasPrefix(final, "gcr.io/distroless/") {
		t.Errorf("Dockerfile: the final stage is based on %s, want scratch or distroless", final)
	}
	if uid, _, _ := strings.Cut(user, ":"); user == "" || uid == "0" || uid == "root" {
		t.Errorf("Dockerfile: the final stage runs as %q, want a non-root user", user)
	}
	if entrypoint != `["/interlinker"]` {
		t.Errorf(`Dockerfile: ENTRYPOINT %s, want ["/interlinker"] (compose and the manifests give the verb as the command)`, entrypoint)
	}
	c.checkCommand("Dockerfile ENV", []string{"serve"}, env)
}

// deployProject loads compose.yaml as `docker compose` would, validating
// it against the Compose specification.
func deployProject(t *testing.T) *types.Project {
	t.Helper()
	opts, err := cli.NewProjectOptions([]string{filepath.Join(deployDir, "compose.yaml")},
		cli.WithWorkingDirectory(deployDir),
		cli.WithEnv([]string{"INTERLINKER_ADMIN_TOKEN=test-token"}))
	if err != nil {
		t.Fatal(err)
	}
	project, err := opts.LoadProject(context.Background())
	if err != nil {
		t.Fatalf("compose.yaml does not load: %v", err)
	}
	return project
}

func TestDeployComposeStartsInOrderAndUsesOnlyWhatTheBinaryHas(t *testing.T) {
	project := deployProject(t)
	c := newDeployChecker(t)
	isInterlinker := func(s types.ServiceConfig) bool {
		return s.Build != nil && s.Build.Dockerfile == "deploy/Dockerfile"
	}
	var replicas []types.ServiceConfig
	var natsNodes []string
	for _, name := range project.ServiceNames() {
		s := project.Services[name]
		where := "compose " + name
		if isInterlinker(s) {
			if s.Image == "" || strings.HasSuffix(s.Image, ":latest") {
				t.Errorf("%s: the image built from deploy/Dockerfile needs a tag: %q", where, s.Image)
			}
			env := slices.Collect(func(yield func(string) bool) {
				for k := range s.Environment {
					if !yield(k) {
						return
					}
				}
			})
			c.checkCommand(where, s.Command, env)
			if s.HealthCheck != nil && len(s.HealthCheck.Test) > 1 && s.HealthCheck.Test[1] == "/interlinker" {
				c.checkCommand(where+" healthcheck", s.HealthCheck.Test[2:], nil) // the container's environment is serve's
			}
			if len(s.Command) > 0 && s.Command[0] == "serve" {
				replicas = append(replicas, s)
			}
		} else {
			checkPinned(t, where, s.Image)
		}
		if strings.HasPrefix(s.Image, "nats:") {
			natsNodes = append(natsNodes, name)
			if major, minor, ok := imageVersion(s.Image); !ok || major < 2 || major == 2 && minor < 12 {
				t.Errorf("%s: %s, want the official NATS image 2.12 or later", where, s.Image)
			}
		}
		for dep, d := range s.DependsOn {
			target, ok := project.Services[dep]
			switch {
			case !ok:
				t.Errorf("%s depends on %s, which is no service", where, dep)
			case d.Condition == types.ServiceConditionHealthy && (target.HealthCheck == nil || target.HealthCheck.Disable || len(target.HealthCheck.Test) == 0):
				t.Errorf("%s waits for %s to be healthy, which has no health check", where, dep)
			}
		}
	}

	if len(natsNodes) != 3 {
		t.Fatalf("compose runs NATS nodes %v, want a cluster of 3", natsNodes)
	}
	if len(replicas) != 1 {
		t.Fatalf("compose has %d serve services, want one with two replicas", len(replicas))
	}
	svc := replicas[0]
	if svc.Deploy == nil || svc.Deploy.Replicas == nil || *svc.Deploy.Replicas != 2 {
		t.Errorf("compose %s: want deploy.replicas 2", svc.Name)
	}
	if v, _ := flagValue(svc.Command, "stream-replicas"); v != "3" {
		t.Errorf("compose %s: serve %v, want --stream-replicas 3 on the 3-node cluster", svc.Name, svc.Command)
	}
	want := map[string]string{"postgres": types.ServiceConditionHealthy}
	for _, n := range natsNodes {
		want[n] = types.ServiceConditionHealthy
	}
	for _, s := range project.Services {
		if isInterlinker(s) && len(s.Command) > 0 && s.Command[0] == "migrate" {
			want[s.Name] = types.ServiceConditionCompletedSuccessfully
			if d, ok := s.DependsOn["postgres"]; !ok || d.Condition != types.ServiceConditionHealthy {
				t.Errorf("compose %s: want it to wait for a healthy postgres", s.Name)
			}
		}
	}
	for dep, cond := range want {
		if d, ok := svc.DependsOn[dep]; !ok || d.Condition != cond {
			t.Errorf("compose %s: want depends_on %s with condition %s, have %+v", svc.Name, dep, cond, d)
		}
	}
	if svc.HealthCheck == nil || len(svc.HealthCheck.Test) < 3 || svc.HealthCheck.Test[2] != "health" {
		t.Errorf("compose %s: want a health check running `interlinker health`", svc.Name)
	}
	httpAddr := svc.Environment["INTERLINKER_HTTP_ADDR"]
	if httpAddr == nil {
		t.Fatalf("compose %s: INTERLINKER_HTTP_ADDR is not set", svc.Name)
	}
	port := portOf(t, "compose "+svc.Name, *httpAddr)
	natsURL := svc.Environment["INTERLINKER_NATS_URL"]
	for _, n := range natsNodes {
		if natsURL == nil || !strings.Contains(*natsURL, "nats://"+n+":4222") {
			t.Errorf("compose %s: INTERLINKER_NATS_URL does not name %s", svc.Name, n)
		}
	}
	if pg, ok := project.Services["postgres"]; !ok || !slices.ContainsFunc(pg.Volumes, func(v types.ServiceVolumeConfig) bool {
		return v.Type == types.VolumeTypeVolume && v.Target == "/var/lib/postgresql/data"
	}) {
		t.Error("compose postgres: want a named volume at /var/lib/postgresql/data")
	}

	// The NATS configuration, read by nats-server's own parser.
	for _, n := range natsNodes {
		s := project.Services[n]
		var conf, data string
		for _, v := range s.Volumes {
			switch {
			case v.Type == types.VolumeTypeBind && strings.HasSuffix(v.Source, ".conf"):
				conf = v.Source
				if !slices.Contains(s.Command, v.Target) {
					t.Errorf("compose %s: mounts %s at %s but does not run with it: %v", n, v.Source, v.Target, s.Command)
				}
			case v.Type == types.VolumeTypeVolume:
				data = v.Target
			}
		}
		name := s.Environment["SERVER_NAME"]
		if conf == "" || name == nil {
			t.Errorf("compose %s: want a mounted .conf and SERVER_NAME", n)
			continue
		}
		t.Setenv("SERVER_NAME", *name)
		opts, err := server.ProcessConfigFile(conf)
		if err != nil {
			t.Errorf("compose %s: %s: %v", n, conf, err)
			continue
		}
		var routes []string
		for _, r := range opts.Routes {
			routes = append(routes, r.Hostname())
		}
		slices.Sort(routes)
		switch {
		case opts.ServerName != n:
			t.Errorf("compose %s: server name %q", n, opts.ServerName)
		case !opts.JetStream || opts.StoreDir != data:
			t.Errorf("compose %s: JetStream %v storing in %q, want it on in the volume at %q", n, opts.JetStream, opts.StoreDir, data)
		case !slices.Equal(routes, natsNodes):
			t.Errorf("compose %s: routes to %v, want %v", n, routes, natsNodes)
		case opts.HTTPPort != 8222:
			t.Errorf("compose %s: monitoring on %d, where the health check asks 8222", n, opts.HTTPPort)
		case opts.MaxPayload < 4<<20:
			t.Errorf("compose %s: max_payload %d is too small for whole pages", n, opts.MaxPayload)
		}
	}

	// Prometheus scrapes the replicas where serve listens, on a path it serves.
	var prom struct {
		ScrapeConfigs []struct {
			JobName     string `json:"job_name"`
			MetricsPath string `json:"metrics_path"`
			DNSSD       []struct {
				Names []string `json:"names"`
				Type  string   `json:"type"`
				Port  int      `json:"port"`
			} `json:"dns_sd_configs"`
		} `json:"scrape_configs"`
	}
	readYAML(t, filepath.Join(deployDir, "prometheus.yml"), &prom)
	scraped := false
	for _, sc := range prom.ScrapeConfigs {
		for _, sd := range sc.DNSSD {
			if slices.Contains(sd.Names, svc.Name) && sd.Port == port {
				scraped = true
				path := sc.MetricsPath
				if path == "" {
					path = "/metrics"
				}
				c.checkPath("prometheus.yml job "+sc.JobName, path)
			}
		}
	}
	if !scraped {
		t.Errorf("prometheus.yml scrapes no %s:%d", svc.Name, port)
	}

	// The collector exports to a service of the project.
	var otel map[string]any
	readYAML(t, filepath.Join(deployDir, "otel-collector.yaml"), &otel)
	exporters, _ := otel["exporters"].(map[string]any)
	if len(exporters) == 0 {
		t.Error("otel-collector.yaml has no exporter")
	}
	for name, e := range exporters {
		endpoint, _ := e.(map[string]any)["endpoint"].(string)
		host, _, _ := net.SplitHostPort(endpoint)
		if _, ok := project.Services[host]; !ok {
			t.Errorf("otel-collector.yaml exporter %s sends to %q, no service of compose.yaml", name, endpoint)
		}
	}
	// The replicas' spans go to the collector's OTLP/HTTP receiver.
	if ep := svc.Environment["INTERLINKER_OTLP_ENDPOINT"]; ep != nil {
		u, err := url.Parse(*ep)
		receivers, _ := otel["receivers"].(map[string]any)
		otlp, _ := receivers["otlp"].(map[string]any)
		protocols, _ := otlp["protocols"].(map[string]any)
		httpReceiver, _ := protocols["http"].(map[string]any)
		listen, _ := httpReceiver["endpoint"].(string)
		_, receiverPort, _ := net.SplitHostPort(listen)
		if _, ok := project.Services[u.Hostname()]; err != nil || !ok || u.Port() != receiverPort {
			t.Errorf("compose %s: INTERLINKER_OTLP_ENDPOINT %q is not the collector's OTLP/HTTP receiver (%s)", svc.Name, *ep, listen)
		}
	}
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// kustomization is the part of kustomization.yaml the test reads.
type kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Resources  []string `json:"resources"`
	Images     []struct {
		Name    string `json:"name"`
		NewName string `json:"newName"`
		NewTag  string `json:"newTag"`
		Digest  string `json:"digest"`
	} `json:"images"`
}

// k8sObjects are the manifests of the base, decoded strictly into the
// Kubernetes API types (a misspelt field fails).
type k8sObjects struct {
	deployments     []appsv1.Deployment
	services        []corev1.Service
	secrets         []corev1.Secret
	pdbs            []policyv1.PodDisruptionBudget
	jobs            []batchv1.Job
	cronJobs        []batchv1.CronJob
	networkPolicies []networkingv1.NetworkPolicy
	serviceMonitors []map[string]any
}

func decodeManifests(t *testing.T, dir string, files []string) k8sObjects {
	t.Helper()
	var objs k8sObjects
	for _, file := range files {
		raw, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
		for {
			doc, err := reader.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			var tm metav1.TypeMeta
			if err := yaml.Unmarshal(doc, &tm); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if tm.Kind == "" {
				continue // an empty document
			}
			strict := func(v any) {
				if err := yaml.UnmarshalStrict(doc, v); err != nil {
					t.Errorf("%s: %s: %v", file, tm.Kind, err)
				}
			}
			switch tm.APIVersion + " " + tm.Kind {
			case "apps/v1 Deployment":
				var o appsv1.Deployment
				strict(&o)
				objs.deployments = append(objs.deployments, o)
			case "v1 Service":
				var o corev1.Service
				strict(&o)
				objs.services = append(objs.services, o)
			case "v1 Secret":
				var o corev1.Secret
				strict(&o)
				objs.secrets = append(objs.secrets, o)
			case "policy/v1 PodDisruptionBudget":
				var o policyv1.PodDisruptionBudget
				strict(&o)
				objs.pdbs = append(objs.pdbs, o)
			case "batch/v1 Job":
				var o batchv1.Job
				strict(&o)
				objs.jobs = append(objs.jobs, o)
			case "batch/v1 CronJob":
				var o batchv1.CronJob
				strict(&o)
				objs.cronJobs = append(objs.cronJobs, o)
			case "networking.k8s.io/v1 NetworkPolicy":
				var o networkingv1.NetworkPolicy
				strict(&o)
				objs.networkPolicies = append(objs.networkPolicies, o)
			case "monitoring.coreos.com/v1 ServiceMonitor":
				var o map[string]any
				if err := yaml.Unmarshal(doc, &o); err != nil {
					t.Errorf("%s: %v", file, err)
				}
				objs.serviceMonitors = append(objs.serviceMonitors, o)
			default:
				t.Errorf("%s: %s %s is not a kind this test knows: teach it, so the manifest is checked", file, tm.APIVersion, tm.Kind)
			}
		}
	}
	return objs
}

// podTemplate is a pod template of a workload, named for messages.
type podTemplate struct {
	where string
	spec  corev1.PodTemplateSpec
}

func TestDeployKubernetesBaseUsesOnlyWhatTheBinaryHas(t *testing.T) {
	dir := filepath.Join(deployDir, "kubernetes")
	c := newDeployChecker(t)
	var k kustomization
	readYAML(t, filepath.Join(dir, "kustomization.yaml"), &k)
	if k.Kind != "Kustomization" || !strings.HasPrefix(k.APIVersion, "kustomize.config.k8s.io/") {
		t.Errorf("kustomization.yaml: %s %s", k.APIVersion, k.Kind)
	}
	onDisk, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	for _, path := range onDisk {
		name := filepath.Base(path)
		if name != "kustomization.yaml" && name != "nats-values.yaml" && !slices.Contains(k.Resources, name) {
			t.Errorf("kubernetes/%s is not among the kustomization's resources", name)
		}
	}
	objs := decodeManifests(t, dir, k.Resources)
	if len(objs.deployments) != 1 || len(objs.jobs) != 1 || len(objs.cronJobs) != 2 || len(objs.pdbs) != 1 ||
		len(objs.services) != 1 || len(objs.serviceMonitors) != 1 || len(objs.networkPolicies) == 0 || len(objs.secrets) != 2 {
		t.Fatalf("the base has %d deployments, %d jobs, %d cron jobs, %d PDBs, %d services, %d service monitors, %d network policies, %d secrets; "+
			"want 1, 1 (migrate), 2 (audit, verify), 1, 1, 1, some, 2 (database URL, admin token)",
			len(objs.deployments), len(objs.jobs), len(objs.cronJobs), len(objs.pdbs), len(objs.services), len(objs.serviceMonitors),
			len(objs.networkPolicies), len(objs.secrets))
	}
	secretKeys := map[string]bool{}
	for _, s := range objs.secrets {
		for key := range s.StringData {
			secretKeys[s.Name+"/"+key] = true
		}
		for key := range s.Data {
			secretKeys[s.Name+"/"+key] = true
		}
	}
	images := map[string]string{}
	for _, img := range k.Images {
		ref := img.NewName
		if ref == "" {
			ref = img.Name
		}
		if img.NewTag != "" {
			ref += ":" + img.NewTag
		}
		if img.Digest != "" {
			ref += "@" + img.Digest
		}
		images[img.Name] = ref
	}

	dep := objs.deployments[0]
	pods := []podTemplate{{"Deployment " + dep.Name, dep.Spec.Template}}
	for _, j := range objs.jobs {
		pods = append(pods, podTemplate{"Job " + j.Name, j.Spec.Template})
	}
	var scheduled []string
	for _, cj := range objs.cronJobs {
		pods = append(pods, podTemplate{"CronJob " + cj.Name, cj.Spec.JobTemplate.Spec.Template})
		if fields := strings.Fields(cj.Spec.Schedule); len(fields) != 5 {
			t.Errorf("CronJob %s: schedule %q is not five fields", cj.Name, cj.Spec.Schedule)
		}
		if cj.Spec.ConcurrencyPolicy != batchv1.ForbidConcurrent {
			t.Errorf("CronJob %s: concurrencyPolicy %q, want Forbid", cj.Name, cj.Spec.ConcurrencyPolicy)
		}
		for _, ctr := range cj.Spec.JobTemplate.Spec.Template.Spec.Containers {
			scheduled = append(scheduled, strings.Join(ctr.Args, " ")+" @ "+cj.Spec.Schedule)
		}
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`^audit --all-sites\b.* @ \d+ \d+ \* \* \*$`),     // nightly, every site
		regexp.MustCompile(`^verify --all-sites\b.* @ \d+ \d+ \* \* [0-6]$`), // weekly, every site
	} {
		if !slices.ContainsFunc(scheduled, want.MatchString) {
			t.Errorf("no CronJob matches %s: %q", want, scheduled)
		}
	}

	for _, pod := range pods {
		spec := pod.spec.Spec
		if sc := spec.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
			t.Errorf("%s: want runAsNonRoot", pod.where)
		}
		covered := false
		for _, np := range objs.networkPolicies {
			sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
			if err == nil && sel.Matches(labels.Set(pod.spec.Labels)) {
				covered = true
			}
		}
		if !covered {
			t.Errorf("%s: no NetworkPolicy selects its pods", pod.where)
		}
		for _, ctr := range spec.Containers {
			where := pod.where + " container " + ctr.Name
			image := ctr.Image
			if ref, ok := images[image]; ok {
				image = ref
			}
			checkPinned(t, where, image)
			if len(ctr.Command) > 0 {
				t.Errorf("%s: sets command %v; the image's entrypoint is the binary, give the verb as args", where, ctr.Command)
			}
			var env []string
			for _, e := range ctr.Env {
				env = append(env, e.Name)
				if ref := e.ValueFrom; ref != nil && ref.SecretKeyRef != nil && !secretKeys[ref.SecretKeyRef.Name+"/"+ref.SecretKeyRef.Key] {
					t.Errorf("%s: %s reads secret %s key %s, which the base does not define", where, e.Name, ref.SecretKeyRef.Name, ref.SecretKeyRef.Key)
				}
			}
			c.checkCommand(where, ctr.Args, env)
			if ctr.Resources.Requests.Cpu().IsZero() || ctr.Resources.Requests.Memory().IsZero() {
				t.Errorf("%s: want cpu and memory requests", where)
			}
		}
	}

	// The server: probes on paths the service answers, on the port serve
	// listens on; the Service, the PDB, the ServiceMonitor and the
	// NetworkPolicy select its pods.
	podLabels := labels.Set(dep.Spec.Template.Labels)
	if len(dep.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("Deployment %s: want one container", dep.Name)
	}
	ctr := dep.Spec.Template.Spec.Containers[0]
	if dep.Spec.Replicas == nil || *dep.Spec.Replicas < 2 {
		t.Errorf("Deployment %s: want at least two replicas", dep.Name)
	}
	var listen string
	for _, e := range ctr.Env {
		if e.Name == "INTERLINKER_HTTP_ADDR" {
			listen = e.Value
		}
	}
	port := portOf(t, "Deployment "+dep.Name, listen)
	portNames := map[string]int32{}
	for _, p := range ctr.Ports {
		portNames[p.Name] = p.ContainerPort
		if int(p.ContainerPort) != port {
			t.Errorf("Deployment %s: container port %s is %d, serve listens on %d", dep.Name, p.Name, p.ContainerPort, port)
		}
	}
	probes := map[string]*corev1.Probe{"readiness": ctr.ReadinessProbe, "liveness": ctr.LivenessProbe, "startup": ctr.StartupProbe}
	for kind, p := range probes {
		where := "Deployment " + dep.Name + " " + kind + " probe"
		if p == nil {
			if kind != "startup" {
				t.Errorf("%s: missing", where)
			}
			continue
		}
		if p.HTTPGet == nil {
			t.Errorf("%s: want an HTTP GET", where)
			continue
		}
		c.checkPath(where, p.HTTPGet.Path)
		if n, ok := portNames[p.HTTPGet.Port.String()]; !ok && p.HTTPGet.Port.IntValue() != port || ok && int(n) != port {
			t.Errorf("%s: port %s is not serve's %d", where, p.HTTPGet.Port.String(), port)
		}
	}
	if ctr.ReadinessProbe != nil && ctr.ReadinessProbe.HTTPGet != nil && ctr.ReadinessProbe.HTTPGet.Path != "/readyz" {
		t.Errorf("Deployment %s: the readiness probe asks %s, want /readyz", dep.Name, ctr.ReadinessProbe.HTTPGet.Path)
	}
	if ctr.LivenessProbe != nil && ctr.LivenessProbe.HTTPGet != nil && ctr.LivenessProbe.HTTPGet.Path != "/healthz" {
		t.Errorf("Deployment %s: the liveness probe asks %s, want /healthz (a dependency away must not restart the pod)", dep.Name, ctr.LivenessProbe.HTTPGet.Path)
	}

	pdb := objs.pdbs[0]
	if sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector); err != nil || !sel.Matches(podLabels) {
		t.Errorf("PodDisruptionBudget %s does not select the Deployment's pods", pdb.Name)
	}
	if pdb.Spec.MinAvailable == nil && pdb.Spec.MaxUnavailable == nil {
		t.Errorf("PodDisruptionBudget %s sets neither minAvailable nor maxUnavailable", pdb.Name)
	}

	svc := objs.services[0]
	if !labels.SelectorFromSet(svc.Spec.Selector).Matches(podLabels) {
		t.Errorf("Service %s does not select the Deployment's pods", svc.Name)
	}
	svcPorts := map[string]bool{}
	for _, p := range svc.Spec.Ports {
		svcPorts[p.Name] = true
		if _, ok := portNames[p.TargetPort.String()]; !ok && p.TargetPort.IntValue() != port {
			t.Errorf("Service %s: port %s targets %s, no port of the container", svc.Name, p.Name, p.TargetPort.String())
		}
	}

	sm := objs.serviceMonitors[0]
	spec, _ := sm["spec"].(map[string]any)
	selector, _ := spec["selector"].(map[string]any)
	matchLabels := map[string]string{}
	if ml, ok := selector["matchLabels"].(map[string]any); ok {
		for k, v := range ml {
			matchLabels[k], _ = v.(string)
		}
	}
	if len(matchLabels) == 0 || !labels.SelectorFromSet(matchLabels).Matches(labels.Set(svc.Labels)) {
		t.Errorf("the ServiceMonitor's selector %v does not select Service %s", matchLabels, svc.Name)
	}
	endpoints, _ := spec["endpoints"].([]any)
	if len(endpoints) == 0 {
		t.Error("the ServiceMonitor has no endpoint")
	}
	for _, e := range endpoints {
		ep, _ := e.(map[string]any)
		portName, _ := ep["port"].(string)
		path, _ := ep["path"].(string)
		if !svcPorts[portName] {
			t.Errorf("the ServiceMonitor scrapes port %q, which Service %s does not name", portName, svc.Name)
		}
		if path == "" {
			path = "/metrics"
		}
		c.checkPath("ServiceMonitor endpoint", path)
	}

	ingressOpen := false
	for _, np := range objs.networkPolicies {
		sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
		if err != nil || !sel.Matches(podLabels) {
			continue
		}
		for _, rule := range np.Spec.Ingress {
			for _, p := range rule.Ports {
				if p.Port != nil && (p.Port.String() == "http" || p.Port.IntValue() == port) {
					ingressOpen = true
				}
			}
		}
	}
	if !ingressOpen {
		t.Errorf("no NetworkPolicy lets traffic reach the server's port %d", port)
	}

	// NATS comes from the official Helm chart: three nodes, JetStream on
	// files, as many as the server's --stream-replicas.
	var values struct {
		Config struct {
			Cluster struct {
				Enabled  bool `json:"enabled"`
				Replicas int  `json:"replicas"`
			} `json:"cluster"`
			JetStream struct {
				Enabled   bool `json:"enabled"`
				FileStore struct {
					Enabled bool `json:"enabled"`
					PVC     struct {
						Enabled bool   `json:"enabled"`
						Size    string `json:"size"`
					} `json:"pvc"`
				} `json:"fileStore"`
			} `json:"jetstream"`
		} `json:"config"`
		Container struct {
			Image struct {
				Repository string `json:"repository"`
				Tag        string `json:"tag"`
			} `json:"image"`
		} `json:"container"`
	}
	readYAML(t, filepath.Join(dir, "nats-values.yaml"), &values)
	cl, js := values.Config.Cluster, values.Config.JetStream
	if !cl.Enabled || cl.Replicas != 3 || !js.Enabled || !js.FileStore.Enabled || !js.FileStore.PVC.Enabled {
		t.Errorf("nats-values.yaml: cluster %+v, jetstream %+v; want 3 nodes with JetStream on persistent files", cl, js)
	}
	natsImage := values.Container.Image.Repository + ":" + values.Container.Image.Tag
	checkPinned(t, "nats-values.yaml", natsImage)
	if major, minor, ok := imageVersion(natsImage); values.Container.Image.Repository != "nats" || !ok || major < 2 || major == 2 && minor < 12 {
		t.Errorf("nats-values.yaml: image %s, want the official NATS image 2.12 or later", natsImage)
	}
	if v, _ := flagValue(ctr.Args, "stream-replicas"); v != strconv.Itoa(cl.Replicas) {
		t.Errorf("Deployment %s: --stream-replicas %q, want the cluster's %d nodes", dep.Name, v, cl.Replicas)
	}
}
