// Package llmtest is a fake OpenAI-compatible server for tests: a real
// net/http server on 127.0.0.1 that speaks POST /v1/chat/completions and
// answers as each test scripts it.
//
//	srv := llmtest.New(t)                       // closed when the test ends
//	srv.Script(func(r llmtest.Request) llmtest.Reply {
//		if r.Call == 1 {
//			return llmtest.Status(429, "Retry-After", "1")
//		}
//		return llmtest.Answer("<p>See <a href=\"" + r.User.TargetURL + "\">" + r.User.Anchor + "</a>.</p>")
//	})
//	client, _ := llm.New(llm.Config{BaseURL: srv.URL(), Model: "fake"}, nil, nil)
//
// Without a script (or after Script(nil)) the server answers Good: rewrite
// calls with GoodRewrite, phrases calls with GoodPhrases. Down makes it
// answer 503 to everything until Up; Calls, MaxInFlight and Requests report
// what reached it.
package llmtest

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

// Request is one chat completion request as the server received it.
type Request struct {
	Call          int       // 1 for the first request the server received, 2 for the next...
	Received      time.Time // when it arrived
	Authorization string    // the Authorization header, as sent
	Model         string
	// Temperature is the request's temperature; nil when it was absent.
	Temperature *float64
	// ResponseFormat is the response_format object, as sent; nil when absent.
	ResponseFormat json.RawMessage
	Messages       []Message // every message, in order
	System         string    // the content of the first system message
	UserRaw        string    // the content of the first user message, as sent
	// User is UserRaw decoded (when it is a JSON object), and UserKeys its
	// keys, sorted: a test checks with them that nothing else is sent.
	User     UserFields
	UserKeys []string
	// Kind is the call, decided from the user message's keys: "phrases"
	// when it has "targets", "rewrite" when it has "paragraph_html", else "".
	Kind string
	// Phrases is UserRaw decoded as a phrases call's user message (set
	// when Kind is "phrases").
	Phrases PhrasesUser
	Body    []byte // the whole request body
}

// Kinds of Request.
const (
	KindRewrite = "rewrite"
	KindPhrases = "phrases"
)

// PhrasesUser are the fields of a phrases call's user message.
type PhrasesUser struct {
	PageTitle string         `json:"page_title"`
	Text      string         `json:"text"`
	Targets   []PhraseTarget `json:"targets"`
}

// PhraseTarget is one target of a phrases call.
type PhraseTarget struct {
	TargetURL string `json:"target_url"`
	Title     string `json:"title"`
	Keyword   string `json:"keyword"`
}

// Message is one chat message of a request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// UserFields are the fields of interlinker's user message.
type UserFields struct {
	ParagraphHTML string `json:"paragraph_html"`
	Anchor        string `json:"anchor"`
	TargetURL     string `json:"target_url"`
	PageTitle     string `json:"page_title"`
	TargetTitle   string `json:"target_title"`
}

// Reply is how the server answers one request. The zero Reply is a 200
// with an empty content.
type Reply struct {
	// Content is the assistant message's content in a 200 chat completion.
	Content string
	// NoChoices sends a 200 chat completion with an empty choices array.
	NoChoices bool
	// Status, when not 0 or 200, answers with this status and an OpenAI
	// error object (or Body) instead of a completion.
	Status int
	// Header holds extra response headers (e.g. Retry-After).
	Header http.Header
	// Body, when not "", is sent verbatim as the response body instead of
	// a completion or an error object.
	Body string
	// Hang holds the request until the client gives up (its context ends
	// and the connection closes) or the server closes.
	Hang bool
	// Hangup closes the connection without answering.
	Hangup bool
	// TokensIn and TokensOut are the usage reported on a 200; when both
	// are 0 the server reports len(request body)/4 and len(Content)/4+1.
	TokensIn, TokensOut int
}

// Answer is a 200 whose content is {"paragraph_html": paragraphHTML}: a
// well-formed answer.
func Answer(paragraphHTML string) Reply {
	b, _ := json.Marshal(map[string]string{"paragraph_html": paragraphHTML})
	return Reply{Content: string(b)}
}

// PhrasesAnswer is a 200 whose content is {"targets": [{"target_url",
// "phrases"}]} holding byTarget, in the order of the URLs (sorted): a
// well-formed phrases answer. A nil list is sent as [].
func PhrasesAnswer(byTarget map[string][]string) Reply {
	urls := make([]string, 0, len(byTarget))
	for u := range byTarget {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	targets := make([]phrasesTarget, 0, len(urls))
	for _, u := range urls {
		targets = append(targets, phrasesTarget{u, byTarget[u]})
	}
	return phrasesReply(targets)
}

type phrasesTarget struct {
	TargetURL string   `json:"target_url"`
	Phrases   []string `json:"phrases"`
}

func phrasesReply(targets []phrasesTarget) Reply {
	for i := range targets {
		if targets[i].Phrases == nil {
			targets[i].Phrases = []string{}
		}
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]any{"targets": targets})
	return Reply{Content: strings.TrimSuffix(b.String(), "\n")}
}

// Raw is a 200 whose content is content as given (garbage, text, other JSON).
func Raw(content string) Reply { return Reply{Content: content} }

// Status is an error answer: the status, and headers as name, value pairs.
func Status(code int, headerPairs ...string) Reply {
	r := Reply{Status: code, Header: http.Header{}}
	for i := 0; i+1 < len(headerPairs); i += 2 {
		r.Header.Add(headerPairs[i], headerPairs[i+1])
	}
	return r
}

// Hang is a request held until the client gives up.
func Hang() Reply { return Reply{Hang: true} }

// GoodRewrite is the default script: the paragraph with the link added,
// around the first occurrence of the anchor in its text if there is one
// outside tags, else as a sentence "See <a>anchor</a>." before its last
// closing tag.
func GoodRewrite(r Request) Reply {
	p, anchor := r.User.ParagraphHTML, r.User.Anchor
	link := func(text string) string {
		return `<a href="` + html.EscapeString(r.User.TargetURL) + `">` + text + `</a>`
	}
	if anchor != "" {
		if i := indexInText(p, anchor); i >= 0 {
			return Answer(p[:i] + link(p[i:i+len(anchor)]) + p[i+len(anchor):])
		}
	}
	sentence := " See " + link(html.EscapeString(anchor)) + "."
	if i := strings.LastIndex(p, "</"); i >= 0 {
		return Answer(strings.TrimRight(p[:i], " ") + sentence + p[i:])
	}
	return Answer(p + sentence)
}

// Good is the default script: GoodPhrases for a phrases call, GoodRewrite
// for anything else.
func Good(r Request) Reply {
	if r.Kind == KindPhrases {
		return GoodPhrases(r)
	}
	return GoodRewrite(r)
}

// GoodPhrases answers a phrases call well: for each target, in the
// request's order, up to 3 phrases taken word for word from the page text,
// the 2–4-word runs of it (within a sentence) holding a word of the
// target's title or keyword, those with the most such words first, then
// the shorter, then the earlier; and when the text has none, the target's
// keyword (or its title, if it has no keyword).
func GoodPhrases(r Request) Reply {
	words := textWords(r.Phrases.Text)
	targets := make([]phrasesTarget, 0, len(r.Phrases.Targets))
	for _, t := range r.Phrases.Targets {
		wanted := map[string]bool{}
		for _, w := range textWords(t.Title + " " + t.Keyword) {
			if lw := strings.ToLower(w.text); len([]rune(lw)) >= 3 && !stopWords[lw] {
				wanted[lw] = true
			}
		}
		type window struct {
			phrase               string
			hits, length, offset int
		}
		var windows []window
		for i := range words {
			hits := 0
			for n := 1; n <= 4 && i+n <= len(words); n++ {
				last := words[i+n-1]
				if n > 1 && strings.TrimSpace(r.Phrases.Text[words[i+n-2].end:last.start]) != "" {
					break // punctuation between the words: not one phrase
				}
				if wanted[strings.ToLower(last.text)] {
					hits++
				}
				if n >= 2 && hits > 0 {
					windows = append(windows, window{r.Phrases.Text[words[i].start:last.end], hits, n, words[i].start})
				}
			}
		}
		sort.SliceStable(windows, func(a, b int) bool {
			wa, wb := windows[a], windows[b]
			if wa.hits != wb.hits {
				return wa.hits > wb.hits
			}
			if wa.length != wb.length {
				return wa.length < wb.length
			}
			return wa.offset < wb.offset
		})
		var phrases []string
		seen := map[string]bool{}
		for _, w := range windows {
			if key := strings.ToLower(w.phrase); !seen[key] && len(phrases) < 3 {
				seen[key] = true
				phrases = append(phrases, w.phrase)
			}
		}
		if len(phrases) == 0 {
			switch {
			case strings.TrimSpace(t.Keyword) != "":
				phrases = []string{t.Keyword}
			case strings.TrimSpace(t.Title) != "":
				phrases = []string{t.Title}
			}
		}
		targets = append(targets, phrasesTarget{t.TargetURL, phrases})
	}
	return phrasesReply(targets)
}

// stopWords are words too common to tie a phrase to a target.
var stopWords = map[string]bool{"and": true, "the": true, "for": true, "with": true, "your": true, "you": true,
	"our": true, "are": true, "how": true, "what": true, "from": true, "this": true, "that": true, "into": true}

// word is one word of a text and where it is.
type word struct {
	text       string
	start, end int // byte offsets
}

// textWords are the words of s: runs of letters and digits, with inner
// apostrophes and hyphens.
func textWords(s string) []word {
	var out []word
	start := -1
	isWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	for i, r := range s {
		switch {
		case isWord(r):
			if start < 0 {
				start = i
			}
		case start >= 0 && (r == '\'' || r == '’' || r == '-') && i+utf8.RuneLen(r) < len(s) && isWord(firstRune(s[i+utf8.RuneLen(r):])):
			// inside a word
		case start >= 0:
			out = append(out, word{s[start:i], start, i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, word{s[start:], start, len(s)})
	}
	return out
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// indexInText finds anchor, case-insensitively, outside tags and outside
// existing links.
func indexInText(p, anchor string) int {
	inTag, inLink := false, false
	for i := 0; i < len(p); i++ {
		switch {
		case p[i] == '<':
			inTag = true
			rest := strings.ToLower(p[i:min(i+4, len(p))])
			if strings.HasPrefix(rest, "<a ") || strings.HasPrefix(rest, "<a>") {
				inLink = true
			} else if strings.HasPrefix(rest, "</a>") {
				inLink = false
			}
		case p[i] == '>':
			inTag = false
		case !inTag && !inLink && i+len(anchor) <= len(p) && strings.EqualFold(p[i:i+len(anchor)], anchor):
			return i
		}
	}
	return -1
}

// Server is the fake server.
type Server struct {
	srv  *httptest.Server
	stop chan struct{}

	mu          sync.Mutex
	script      func(Request) Reply
	down        bool
	calls       int
	inFlight    int
	maxInFlight int
	requests    []Request
}

// New starts a server on 127.0.0.1; it is closed when t ends.
func New(t testing.TB) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("llmtest: listen: %v", err)
	}
	s := &Server{stop: make(chan struct{})}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	_ = s.srv.Listener.Close()
	s.srv.Listener = ln
	s.srv.Start()
	t.Cleanup(func() {
		close(s.stop)
		s.srv.Close()
	})
	return s
}

// URL is the base URL to configure a client with, ending in /v1.
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Script sets how the server answers from now on; nil means Good.
func (s *Server) Script(fn func(Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = fn
}

// Down makes the server answer every request with 503 until Up.
func (s *Server) Down() { s.mu.Lock(); s.down = true; s.mu.Unlock() }

// Up makes the server answer by its script again.
func (s *Server) Up() { s.mu.Lock(); s.down = false; s.mu.Unlock() }

// Calls is how many requests reached the server (any path, any answer).
func (s *Server) Calls() int { s.mu.Lock(); defer s.mu.Unlock(); return s.calls }

// MaxInFlight is the most requests the server was handling at once.
func (s *Server) MaxInFlight() int { s.mu.Lock(); defer s.mu.Unlock(); return s.maxInFlight }

// Requests are the chat completion requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	s.mu.Lock()
	s.calls++
	call := s.calls
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	down, script := s.down, s.script
	s.mu.Unlock()
	if script == nil {
		script = Good
	}
	defer func() { s.mu.Lock(); s.inFlight--; s.mu.Unlock() }()

	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		writeError(w, http.StatusNotFound, "llmtest: only POST /v1/chat/completions")
		return
	}
	req, err := decodeRequest(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "llmtest: "+err.Error())
		return
	}
	req.Call, req.Received, req.Authorization = call, time.Now(), r.Header.Get("Authorization")
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()

	if down {
		writeError(w, http.StatusServiceUnavailable, "llmtest: server down")
		return
	}
	reply := script(req)
	for k, vs := range reply.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	switch {
	case reply.Hang:
		select {
		case <-r.Context().Done():
		case <-s.stop:
		}
		return
	case reply.Hangup:
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler) // closes the connection without an answer
	case reply.Body != "":
		status := reply.Status
		if status == 0 {
			status = http.StatusOK
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, reply.Body)
		return
	case reply.Status != 0 && reply.Status != http.StatusOK:
		writeError(w, reply.Status, fmt.Sprintf("llmtest: scripted status %d", reply.Status))
		return
	}

	in, out := reply.TokensIn, reply.TokensOut
	if in == 0 && out == 0 {
		in, out = len(body)/4, len(reply.Content)/4+1
	}
	choices := []any{}
	if !reply.NoChoices {
		choices = append(choices, map[string]any{
			"index":         0,
			"message":       map[string]any{"role": "assistant", "content": reply.Content},
			"finish_reason": "stop",
		})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id":      fmt.Sprintf("chatcmpl-llmtest-%d", call),
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   req.Model,
		"choices": choices,
		"usage":   map[string]int{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out},
	})
}

func decodeRequest(body []byte) (Request, error) {
	var raw struct {
		Model          string          `json:"model"`
		Temperature    *float64        `json:"temperature"`
		ResponseFormat json.RawMessage `json:"response_format"`
		Messages       []Message       `json:"messages"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return Request{}, fmt.Errorf("request body is not a chat completion: %w", err)
	}
	req := Request{Model: raw.Model, Temperature: raw.Temperature, ResponseFormat: raw.ResponseFormat,
		Messages: raw.Messages, Body: body}
	systemSeen, userSeen := false, false
	for _, m := range raw.Messages {
		switch {
		case m.Role == "system" && !systemSeen:
			req.System, systemSeen = m.Content, true
		case m.Role == "user" && !userSeen:
			req.UserRaw, userSeen = m.Content, true
		}
	}
	var keys map[string]json.RawMessage
	if json.Unmarshal([]byte(req.UserRaw), &keys) == nil && keys != nil {
		for k := range keys {
			req.UserKeys = append(req.UserKeys, k)
		}
		sort.Strings(req.UserKeys)
		_ = json.Unmarshal([]byte(req.UserRaw), &req.User)
		switch {
		case keys["targets"] != nil:
			req.Kind = KindPhrases
			_ = json.Unmarshal([]byte(req.UserRaw), &req.Phrases)
		case keys["paragraph_html"] != nil:
			req.Kind = KindRewrite
		}
	}
	return req, nil
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"error": map[string]any{"message": msg, "type": "llmtest", "code": status},
	})
}
