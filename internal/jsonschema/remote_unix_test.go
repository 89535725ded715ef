//go:build unix

package jsonschema

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// TestRemoteRefsAreNeverFetched (CVE-2026-116686 in another SDK: a $ref
// in a server's outputSchema made the client fetch URLs and read local
// files). Schemas that refer to an HTTP server counting its hits and to a
// local file (a named pipe counting its openings) are refused by both
// engines, with an error that wraps ErrRemoteRef and names the
// reference's target; nothing is fetched, nothing is opened.
func TestRemoteRefsAreNeverFetched(t *testing.T) {
	web, hits := countingServer(t)
	file := newFileTrap(t, `{"type":"string"}`)
	fileURL := "file://" + file.path
	dirURL := "file://" + filepath.Dir(file.path) + "/"
	cases := []struct{ schema, target string }{
		{`{"$ref":"` + web + `/a.json"}`, web + "/a.json"},
		{`{"$ref":"` + web + `/a.json#/$defs/x"}`, web + "/a.json"},
		{`{"type":"object","properties":{"a":{"$ref":"` + fileURL + `"}}}`, fileURL},
		{`{"allOf":[{"$ref":"` + fileURL + `#/x"}]}`, fileURL},
		{`{"$id":"` + web + `/dir/s.json","$ref":"a.json"}`, web + "/dir/a.json"},
		{`{"$id":"` + dirURL + `","$ref":"schema.json"}`, fileURL},
		{`{"$id":"urn:example:root","items":{"$ref":"` + web + `/b.json"}}`, web + "/b.json"},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","$ref":"` + fileURL + `"}`, fileURL},
		{`{"items":{"$dynamicRef":"` + web + `/d.json"}}`, web + "/d.json"},
		{`{"items":{"$dynamicRef":"` + fileURL + `#meta"}}`, fileURL},
	}
	bothWays(t, func(t *testing.T) {
		for _, tc := range cases {
			_, err := Compile(json.RawMessage(tc.schema), nil)
			if !errors.Is(err, ErrRemoteRef) || !strings.Contains(err.Error(), `reference to "`+tc.target+`"`) {
				t.Errorf("Compile(%s):\n%v\nwant an error naming %q and wrapping ErrRemoteRef", tc.schema, err, tc.target)
			}
		}
		// A "$schema" naming another document is an unsupported dialect,
		// not fetched either (the full engine would load a meta-schema);
		// nested, it is refused by both (the full engine would load it as
		// a meta-schema; the built-in check knows only the drafts').
		for _, dialect := range []string{web + "/meta", fileURL} {
			_, err := Compile(json.RawMessage(`{"$schema":"`+dialect+`","type":"object"}`), nil)
			if err == nil || !strings.Contains(err.Error(), dialect) {
				t.Errorf("$schema %s: %v, want an error naming it", dialect, err)
			}
			_, err = Compile(json.RawMessage(`{"properties":{"a":{"$schema":"`+dialect+`","type":"string"}}}`), nil)
			if err == nil {
				t.Errorf("nested $schema %s accepted", dialect)
			}
		}
	})
	if n := hits.Load(); n != 0 {
		t.Errorf("the HTTP server was asked %d times", n)
	}
	if n := file.opens.Load(); n != 0 {
		t.Errorf("the local file was opened %d times", n)
	}
}

// countingServer serves a schema on 127.0.0.1 and counts the requests.
func countingServer(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	hits := new(atomic.Int32)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/schema+json")
		w.Write([]byte(`{"type":"string"}`))
	}))
	t.Cleanup(ts.Close)
	return ts.URL, hits
}

// A fileTrap is a named pipe where a schema file would be: every opening
// for reading is counted (a goroutine waits to write the content).
type fileTrap struct {
	path  string
	opens atomic.Int32
}

func newFileTrap(t *testing.T, content string) *fileTrap {
	t.Helper()
	ft := &fileTrap{path: filepath.Join(t.TempDir(), "schema.json")}
	if err := syscall.Mkfifo(ft.path, 0o600); err != nil {
		t.Skipf("no named pipe: %v", err)
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			f, err := os.OpenFile(ft.path, os.O_WRONLY, 0) // returns when a reader opens it
			if err != nil {
				return
			}
			select {
			case <-stop:
				f.Close()
				return
			default:
			}
			ft.opens.Add(1)
			f.WriteString(content)
			f.Close()
		}
	}()
	t.Cleanup(func() {
		close(stop)
		r, err := os.OpenFile(ft.path, os.O_RDONLY|syscall.O_NONBLOCK, 0) // releases the writer
		<-done
		if err == nil {
			r.Close()
		}
	})
	return ft
}
