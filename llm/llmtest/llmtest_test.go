package llmtest_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/interlinker/interlinker/llm/llmtest"
)

func paragraphOf(t *testing.T, r llmtest.Reply) string {
	t.Helper()
	var a struct {
		ParagraphHTML string `json:"paragraph_html"`
	}
	if err := json.Unmarshal([]byte(r.Content), &a); err != nil {
		t.Fatalf("reply content %q: %v", r.Content, err)
	}
	return a.ParagraphHTML
}

func TestGoodRewriteLinksTheAnchorWhereTheTextHasIt(t *testing.T) {
	req := llmtest.Request{User: llmtest.UserFields{
		ParagraphHTML: `<p>See <a href="/x">trail shoes</a> and more Trail Shoes here.</p>`,
		Anchor:        "trail shoes", TargetURL: "/t?a=1&b=2",
	}}
	got := paragraphOf(t, llmtest.GoodRewrite(req))
	want := `<p>See <a href="/x">trail shoes</a> and more <a href="/t?a=1&amp;b=2">Trail Shoes</a> here.</p>`
	if got != want {
		t.Errorf("GoodRewrite = %s, want %s", got, want)
	}
}

func TestGoodRewriteAddsASentenceWhenTheTextLacksTheAnchor(t *testing.T) {
	req := llmtest.Request{User: llmtest.UserFields{ParagraphHTML: `<p>Nothing here.</p>`, Anchor: "road shoes", TargetURL: "/r"}}
	got := paragraphOf(t, llmtest.GoodRewrite(req))
	if want := `<p>Nothing here. See <a href="/r">road shoes</a>.</p>`; got != want {
		t.Errorf("GoodRewrite = %s, want %s", got, want)
	}
}

func TestDownAnswers503UntilUp(t *testing.T) {
	srv := llmtest.New(t)
	post := func() int {
		resp, err := http.Post(srv.URL()+"/chat/completions", "application/json",
			strings.NewReader(`{"model":"m","messages":[{"role":"user","content":"{}"}]}`))
		if err != nil {
			t.Fatalf("post: %v", err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	srv.Down()
	if got := post(); got != http.StatusServiceUnavailable {
		t.Errorf("down: status %d, want 503", got)
	}
	srv.Up()
	if got := post(); got != http.StatusOK {
		t.Errorf("up: status %d, want 200", got)
	}
	if srv.Calls() != 2 || len(srv.Requests()) != 2 || srv.Requests()[1].Call != 2 {
		t.Errorf("calls = %d, requests = %+v", srv.Calls(), srv.Requests())
	}
}
