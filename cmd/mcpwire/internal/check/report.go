package check

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/app"
	"github.com/mcpwire/mcpwire/cmd/mcpwire/internal/frames"
)

// A Report is the outcome of mcpwire check.
type Report struct {
	Server    string    `json:"server"`    // the command line, or the URL(s)
	Transport string    `json:"transport"` // "stdio" or "http"
	Results   []*Result `json:"-"`
}

// Summary counts the results by status.
func (r *Report) Summary() map[Status]int {
	s := map[Status]int{Pass: 0, Warn: 0, Fail: 0, Skip: 0}
	for _, x := range r.Results {
		s[x.Status]++
	}
	return s
}

// Failed reports whether a check failed.
func (r *Report) Failed() bool { return r.Summary()[Fail] > 0 }

// ordered returns the results by area, in report order, keeping the
// order of the checks within an area.
func (r *Report) ordered() map[string][]*Result {
	by := map[string][]*Result{}
	for _, x := range r.Results {
		by[x.Check.Area] = append(by[x.Check.Area], x)
	}
	return by
}

// framesShown bounds the frames the text report shows under a warning or
// a failure; frameClip, the bytes of each.
const (
	framesShown = 6
	frameClip   = 300
)

// writeText writes the report for people: per area, one line per result
// (status, era, check, what it checks and the section of the
// specification), what was seen under it, and for a warning or a failure
// the last frames exchanged.
func (r *Report) writeText(w io.Writer, color bool) {
	paint := func(s Status) string {
		word := fmt.Sprintf("%-4s", s)
		if !color {
			return word
		}
		switch s {
		case Pass:
			return "\x1b[32m" + word + "\x1b[0m"
		case Warn:
			return "\x1b[33m" + word + "\x1b[0m"
		case Fail:
			return "\x1b[31;1m" + word + "\x1b[0m"
		}
		return "\x1b[2m" + word + "\x1b[0m"
	}
	fmt.Fprintf(w, "mcpwire check: %s (%s)\n", r.Server, r.Transport)
	by := r.ordered()
	for _, area := range areas {
		results := by[area]
		if len(results) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s\n", area)
		for _, x := range results {
			era := x.Era
			if era == "" {
				era = "-"
			}
			name := x.Check.ID
			if x.Subject != "" {
				name += " " + x.Subject
			}
			fmt.Fprintf(w, "  %s  %-10s  %s: %s [%s]\n", paint(x.Status), era, name, x.Check.Title, x.Check.Spec)
			if x.Detail != "" && (x.Status != Pass || !strings.Contains(x.Detail, "\n")) {
				app.IndentLines(w, "              ", x.Detail)
			}
			if (x.Status == Warn || x.Status == Fail) && len(x.Frames) > 0 {
				var b bytes.Buffer
				p := &frames.Printer{W: &b, Clip: frameClip, Color: color}
				fr := x.Frames
				if len(fr) > framesShown {
					fr = fr[len(fr)-framesShown:]
				}
				for i := range fr {
					p.Print(&fr[i])
				}
				app.IndentLines(w, "                ", b.String())
			}
		}
	}
	s := r.Summary()
	fmt.Fprintf(w, "\n%d checks: %d pass, %d warn, %d fail, %d skipped\n", len(r.Results), s[Pass], s[Warn], s[Fail], s[Skip])
}

// jsonResult is a result in the JSON report.
type jsonResult struct {
	ID      string          `json:"id"`
	Area    string          `json:"area"`
	Title   string          `json:"title"`
	Spec    string          `json:"spec"`
	Era     string          `json:"era,omitempty"`
	Subject string          `json:"subject,omitempty"`
	Status  Status          `json:"status"`
	Detail  string          `json:"detail,omitempty"`
	Frames  []frames.Record `json:"frames,omitempty"`
}

// writeJSON writes the report as one JSON object.
func (r *Report) writeJSON(w io.Writer) error {
	out := struct {
		Server    string         `json:"server"`
		Transport string         `json:"transport"`
		Summary   map[Status]int `json:"summary"`
		Results   []jsonResult   `json:"results"`
	}{Server: r.Server, Transport: r.Transport, Summary: r.Summary(), Results: []jsonResult{}}
	for _, x := range r.Results {
		out.Results = append(out.Results, jsonResult{
			ID: x.Check.ID, Area: x.Check.Area, Title: x.Check.Title, Spec: x.Check.Spec,
			Era: x.Era, Subject: x.Subject, Status: x.Status, Detail: x.Detail, Frames: x.Frames,
		})
	}
	return app.WriteJSON(w, out)
}

// The JUnit XML report: a test suite per area, a test case per result. A
// failure is a <failure>, a skipped check <skipped>, a warning a passing
// test case whose <system-out> says what was wrong.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// writeJUnit writes the report as JUnit XML, which CI systems show.
func (r *Report) writeJUnit(w io.Writer) error {
	all := junitSuites{Name: "mcpwire check " + r.Server}
	by := r.ordered()
	for _, area := range areas {
		results := by[area]
		if len(results) == 0 {
			continue
		}
		s := junitSuite{Name: area}
		for _, x := range results {
			name := x.Check.ID
			if x.Subject != "" {
				name += " " + x.Subject
			}
			if x.Era != "" {
				name += " [" + x.Era + "]"
			}
			c := junitCase{Name: name, Classname: "mcpwire.check." + strings.SplitN(x.Check.ID, ".", 2)[0]}
			text := x.Check.Title + " (" + x.Check.Spec + ")"
			if x.Detail != "" {
				text += "\n" + x.Detail
			}
			switch x.Status {
			case Fail:
				c.Failure = &junitMessage{Message: firstLine(x.Detail), Type: "fail", Text: text + framesText(x.Frames)}
				s.Failures++
			case Skip:
				c.Skipped = &junitMessage{Message: firstLine(x.Detail)}
				s.Skipped++
			case Warn:
				c.SystemOut = "warning: " + text + framesText(x.Frames)
			}
			s.Tests++
			s.Cases = append(s.Cases, c)
		}
		all.Tests += s.Tests
		all.Failures += s.Failures
		all.Skipped += s.Skipped
		all.Suites = append(all.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// framesText writes frames as the recording format, one per line.
func framesText(fr []frames.Record) string {
	if len(fr) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nframes:\n")
	for i := range fr {
		j, err := json.Marshal(&fr[i])
		if err == nil {
			b.Write(j)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// firstLine returns the first line of s.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
