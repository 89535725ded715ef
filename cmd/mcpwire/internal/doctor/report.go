package doctor

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// A Status is the outcome of one step.
type Status string

// The outcomes of a step.
const (
	OK   Status = "ok"   // it worked
	Warn Status = "warn" // it worked, or did not matter, but says something
	Fail Status = "fail" // it failed
	Skip Status = "skip" // not tried: an earlier step failed
)

// A Step is one thing the doctor tried.
type Step struct {
	ID        string     `json:"id"`    // "process", "dns", "tcp", "tls", "discover", "initialize", "http+sse", "oauth-resource", "oauth-server"
	Title     string     `json:"title"` // what was tried, for a person
	Status    Status     `json:"status"`
	Detail    string     `json:"detail,omitempty"`
	Transport string     `json:"transport,omitempty"` // "stdio", "streamable", "sse"
	Protocol  string     `json:"protocol,omitempty"`  // the revision tried
	HTTP      []Exchange `json:"http,omitempty"`      // the HTTP exchanges of the step
	Stderr    []string   `json:"stderr,omitempty"`    // the tail of the process's stderr
	MS        float64    `json:"ms"`
	next      string     // the next step to take when this one failed
}

// An Exchange is one HTTP exchange of a step, its secrets masked.
type Exchange struct {
	Method      string   `json:"method"`
	URL         string   `json:"url"`
	Status      int      `json:"status,omitempty"`
	ContentType string   `json:"contentType,omitempty"`
	Headers     []string `json:"headers,omitempty"` // of the answer, "Name: value"
	Error       string   `json:"error,omitempty"`
	MS          float64  `json:"ms"`
}

// A Report is the doctor's checklist for one server.
type Report struct {
	Server string `json:"server"` // as the command line named it
	Kind   string `json:"kind"`   // "stdio" or "http"
	// OK reports whether a connection could be made in some era and
	// transport.
	OK bool `json:"ok"`
	// Speaks lists the revisions (and transports) that worked.
	Speaks []string `json:"speaks"`
	Steps  []*Step  `json:"steps"`
	// Next is the one next step to take, or "" when there is nothing to
	// do.
	Next string `json:"next,omitempty"`
}

// add appends a step.
func (r *Report) add(s *Step) *Step {
	r.Steps = append(r.Steps, s)
	return s
}

// skip appends a step not tried, and why.
func (r *Report) skip(id, title, why string) {
	r.add(&Step{ID: id, Title: title, Status: Skip, Detail: why})
}

// finish sets Next: the next step of the first failed step, when no
// connection could be made; else the advice of a warning, if any.
func (r *Report) finish() {
	if !r.OK {
		for _, s := range r.Steps {
			if s.Status == Fail && s.next != "" {
				r.Next = s.next
				return
			}
		}
		r.Next = "no step says more: run the server by hand and read what it prints"
		return
	}
	for _, s := range r.Steps {
		if s.Status == Warn && s.next != "" {
			r.Next = s.next
			return
		}
	}
}

// timed runs f and records its duration in s.
func timed(s *Step, f func()) {
	start := time.Now()
	f()
	s.MS = float64(time.Since(start).Microseconds()) / 1000
}

// Write writes the report for a person: one line per step, its details
// indented, then the next step.
func (r *Report) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "mcpwire doctor %s\n\n", r.Server)
	for _, s := range r.Steps {
		mark := map[Status]string{OK: "ok  ", Warn: "warn", Fail: "FAIL", Skip: "skip"}[s.Status]
		fmt.Fprintf(&b, "[%s] %s", mark, s.Title)
		if s.Status != Skip {
			fmt.Fprintf(&b, " (%s)", formatMS(s.MS))
		}
		b.WriteString("\n")
		if s.Detail != "" {
			for _, l := range strings.Split(s.Detail, "\n") {
				b.WriteString("       " + l + "\n")
			}
		}
		for _, x := range s.HTTP {
			line := x.Method + " " + x.URL + " → "
			if x.Error != "" {
				line += x.Error
			} else {
				line += fmt.Sprintf("HTTP %d", x.Status)
				if x.ContentType != "" {
					line += " " + x.ContentType
				}
			}
			b.WriteString("       " + line + "\n")
		}
		for _, l := range s.Stderr {
			b.WriteString("       stderr: " + l + "\n")
		}
	}
	b.WriteString("\n")
	if r.OK {
		fmt.Fprintf(&b, "The server answers: %s.\n", strings.Join(r.Speaks, "; "))
	} else {
		b.WriteString("No connection could be made.\n")
	}
	if r.Next != "" {
		b.WriteString("Next step: " + r.Next + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// formatMS formats a duration in milliseconds.
func formatMS(ms float64) string {
	if ms >= 1000 {
		return fmt.Sprintf("%.1f s", ms/1000)
	}
	return fmt.Sprintf("%.0f ms", ms)
}

// clip shortens s to n bytes, on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// Bounds of what a report keeps of what a server says: its name, its
// errors, its metadata, its headers. With them, and at most maxExchanges
// exchanges a step, a report stays under about 100 KB whatever the
// server sends.
const (
	maxText        = 1 << 10 // a title, a detail, the next step, a URL, an error
	maxHeaderLines = 12      // of one exchange; the others are counted
	maxHeaderLine  = 200
)

// bound clips what the report quotes of the server, and says so where
// it cuts.
func (r *Report) bound() {
	r.Next = clipKeep(r.Next, maxText)
	for i := range r.Speaks {
		r.Speaks[i] = clipKeep(r.Speaks[i], maxText)
	}
	for _, s := range r.Steps {
		s.Title, s.Detail = clipKeep(s.Title, maxText), clipKeep(s.Detail, maxText)
		for i := range s.HTTP {
			x := &s.HTTP[i]
			x.URL, x.Error, x.ContentType = clipKeep(x.URL, maxText), clipKeep(x.Error, maxText), clipKeep(x.ContentType, maxHeaderLine)
			if n := len(x.Headers); n > maxHeaderLines {
				x.Headers = append(x.Headers[:maxHeaderLines:maxHeaderLines], fmt.Sprintf("(%d more headers not kept)", n-maxHeaderLines))
			}
			for j := range x.Headers {
				x.Headers[j] = clipKeep(x.Headers[j], maxHeaderLine)
			}
		}
	}
}

// clipKeep shortens s to about n bytes, on a character boundary, marking
// the cut; unlike clip it keeps the lines.
func clipKeep(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
