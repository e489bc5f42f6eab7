package llm

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/interlinker/interlinker/outbound"
)

// responseInfoKey carries a *responseInfo in an attempt's context.
type responseInfoKey struct{}

// responseInfo is what go-openai's errors do not say about a response: its
// status and its Retry-After header. doer fills it in.
type responseInfo struct {
	status     int
	retryAfter time.Duration // -1: none, or unparsable
}

// doer is the HTTP client go-openai is given. It does three things
// go-openai cannot be told to do:
//   - it sends "temperature": 0 exactly. ChatCompletionRequest.Temperature
//     is a float32 with omitempty, so go-openai drops a 0 and the server
//     would apply its default, 1 for OpenAI (go-openai issues #9, #678);
//   - it records the status and Retry-After of the response, which
//     go-openai's APIError does not keep;
//   - it bounds how much of a response is read.
type doer struct {
	inner *http.Client
}

func (d *doer) Do(req *http.Request) (*http.Response, error) {
	info, _ := req.Context().Value(responseInfoKey{}).(*responseInfo)
	if info != nil {
		info.retryAfter = -1
	}
	if req.Body != nil && req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/chat/completions") {
		var err error
		if req, err = withZeroTemperature(req); err != nil {
			return nil, err
		}
	}
	resp, err := d.inner.Do(req)
	if err != nil {
		return nil, err
	}
	if info != nil {
		info.status = resp.StatusCode
		if v := resp.Header.Get("Retry-After"); v != "" {
			info.retryAfter = parseRetryAfter(v, time.Now())
		}
	}
	resp.Body = http.MaxBytesReader(nil, resp.Body, maxResponseBytes)
	return resp, nil
}

// withZeroTemperature returns req with "temperature": 0 in its JSON body
// when the body has no temperature.
func withZeroTemperature(req *http.Request) (*http.Request, error) {
	body, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err == nil && fields != nil {
		if _, ok := fields["temperature"]; !ok {
			fields["temperature"] = json.RawMessage("0")
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(fields); err != nil {
				return nil, err
			}
			body = buf.Bytes()
		}
	}
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.ContentLength = int64(len(body))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return out, nil
}

// parseRetryAfter reads a Retry-After value as outbound does; -1 for a
// value it cannot read.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if wait, ok := outbound.ParseRetryAfter(v, now); ok {
		return wait
	}
	return -1
}
