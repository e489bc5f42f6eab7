package site

import (
	"reflect"
	"testing"
	"time"
)

func TestAPublishedVersionKeepsTheNamesItLeavesOutAndTakesThoseItGives(t *testing.T) {
	stored := Page{PrimaryKeyword: "gum disease", Keywords: []string{"periodontal disease"}, Labels: []string{"gums"},
		Attributes: map[string][]string{"age": {"adult"}}, Priority: 2, PublishedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
	bare := Page{ID: "gum-disease", Title: "Gum Disease", Version: 3, HTML: "<p>x</p>"}
	want := stored
	want.ID, want.Title, want.Version, want.HTML = bare.ID, bare.Title, bare.Version, bare.HTML
	if got := bare.KeepingNamesOf(stored); !reflect.DeepEqual(got, want) {
		t.Errorf("a version leaving every name out: %+v, want %+v", got, want)
	}
	given := Page{PrimaryKeyword: "gum recession", Keywords: []string{"receding gums"}, Labels: []string{"care"},
		Attributes: map[string][]string{"age": {"senior"}}, Priority: 1, PublishedAt: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)}
	if got := given.KeepingNamesOf(stored); !reflect.DeepEqual(got, given) {
		t.Errorf("a version giving every name: %+v, want its own %+v", got, given)
	}
}
