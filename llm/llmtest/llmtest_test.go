package llmtest_test

import (
	"encoding/json"
	"net/http"
	"reflect"
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

func phrasesOf(t *testing.T, r llmtest.Reply) map[string][]string {
	t.Helper()
	var a struct {
		Targets []struct {
			TargetURL string   `json:"target_url"`
			Phrases   []string `json:"phrases"`
		} `json:"targets"`
	}
	dec := json.NewDecoder(strings.NewReader(r.Content))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("reply content %q: %v", r.Content, err)
	}
	out := map[string][]string{}
	for _, tg := range a.Targets {
		if tg.Phrases == nil {
			t.Fatalf("phrases of %s are null: %s", tg.TargetURL, r.Content)
		}
		out[tg.TargetURL] = tg.Phrases
	}
	return out
}

func TestGoodPhrasesTakesRunsOfTheTextNamingTheTargetElseTheKeyword(t *testing.T) {
	text := "Trail running needs grip. Light shoes help on long climbs, and trail shoes last."
	req := llmtest.Request{Kind: llmtest.KindPhrases, Phrases: llmtest.PhrasesUser{Text: text, Targets: []llmtest.PhraseTarget{
		{TargetURL: "/trail-shoes", Title: "Trail shoes", Keyword: "lightweight trail shoes"},
		{TargetURL: "/tents", Title: "Tents", Keyword: "backpacking tents"},
	}}}
	got := phrasesOf(t, llmtest.GoodPhrases(req))
	want := map[string][]string{
		"/trail-shoes": {"trail shoes", "and trail shoes", "trail shoes last"},
		"/tents":       {"backpacking tents"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("GoodPhrases = %v, want %v", got, want)
	}
	for _, p := range got["/trail-shoes"] {
		if !strings.Contains(text, p) {
			t.Errorf("phrase %q is not word for word in the text", p)
		}
	}
	if got := phrasesOf(t, llmtest.Good(req)); !reflect.DeepEqual(got, want) {
		t.Errorf("Good on a phrases call = %v, want GoodPhrases' %v", got, want)
	}
}

func TestPhrasesAnswerSendsEveryTargetWithAListOfPhrases(t *testing.T) {
	got := phrasesOf(t, llmtest.PhrasesAnswer(map[string][]string{"/b": {"x y", "<b>z</b>"}, "/a": nil}))
	want := map[string][]string{"/a": {}, "/b": {"x y", "<b>z</b>"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("PhrasesAnswer = %v, want %v", got, want)
	}
}

func TestServerTellsTheCallsApartAndAnswersEachByDefault(t *testing.T) {
	srv := llmtest.New(t)
	post := func(user string) string {
		body, _ := json.Marshal(map[string]any{"model": "m", "messages": []map[string]string{{"role": "user", "content": user}}})
		resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(string(body)))
		if err != nil {
			t.Fatalf("post: %v", err)
		}
		defer resp.Body.Close()
		var out struct {
			Choices []struct {
				Message struct {
					Content string `json:"content"`
				} `json:"message"`
			} `json:"choices"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || len(out.Choices) != 1 {
			t.Fatalf("answer: %v, %+v", err, out)
		}
		return out.Choices[0].Message.Content
	}
	rewrite := post(`{"paragraph_html":"<p>Buy trail shoes.</p>","anchor":"trail shoes","target_url":"/t","page_title":"","target_title":""}`)
	phrases := post(`{"page_title":"P","text":"Buy trail shoes.","targets":[{"target_url":"/t","title":"Trail shoes","keyword":"trail shoes"}]}`)
	if want := `{"paragraph_html":"\u003cp\u003eBuy \u003ca href=\"/t\"\u003etrail shoes\u003c/a\u003e.\u003c/p\u003e"}`; rewrite != want {
		t.Errorf("rewrite answer = %s, want %s", rewrite, want)
	}
	if want := `{"targets":[{"target_url":"/t","phrases":["trail shoes","Buy trail shoes","Buy trail"]}]}`; phrases != want {
		t.Errorf("phrases answer = %s, want %s", phrases, want)
	}
	reqs := srv.Requests()
	if reqs[0].Kind != llmtest.KindRewrite || reqs[1].Kind != llmtest.KindPhrases {
		t.Errorf("kinds = %q, %q; want rewrite, phrases", reqs[0].Kind, reqs[1].Kind)
	}
	wantUser := llmtest.PhrasesUser{PageTitle: "P", Text: "Buy trail shoes.", Targets: []llmtest.PhraseTarget{{TargetURL: "/t", Title: "Trail shoes", Keyword: "trail shoes"}}}
	if !reflect.DeepEqual(reqs[1].Phrases, wantUser) {
		t.Errorf("Phrases = %+v, want %+v", reqs[1].Phrases, wantUser)
	}
	srv.Script(nil) // still the default
	if got := post(`{"page_title":"P","text":"","targets":[{"target_url":"/t","title":"","keyword":"tents"}]}`); got != `{"targets":[{"target_url":"/t","phrases":["tents"]}]}` {
		t.Errorf("after Script(nil): %s", got)
	}
}
