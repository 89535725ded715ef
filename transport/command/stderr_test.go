package command

import (
	"slices"
	"strconv"
	"testing"
)

func TestStderrLogSplitsLines(t *testing.T) {
	log, logs := newLogger()
	s := newStderrLog(8)
	s.start(log)
	for _, p := range []string{"one\ntw", "o\r\n", "\n  \nthree is long\nfo", "ur"} {
		if n, err := s.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	s.flush()
	var got []string
	for _, r := range logs.recs {
		got = append(got, r["line"]+"/"+r["truncated"])
	}
	want := []string{"one/", "two/", "three is/true", "four/"}
	if !slices.Equal(got, want) {
		t.Errorf("logged %q, want %q", got, want)
	}
	if tail := s.tail(); !slices.Equal(tail, []string{"one", "two", "three is", "four"}) {
		t.Errorf("tail = %q", tail)
	}
}

func TestStderrLogTailKeepsTheLastLines(t *testing.T) {
	s := newStderrLog(100)
	s.start(nil) // no logger: lines are only kept
	for i := range 25 {
		s.Write([]byte("line " + strconv.Itoa(i) + "\n"))
	}
	tail := s.tail()
	if len(tail) != tailLines || tail[0] != "line 15" || tail[tailLines-1] != "line 24" {
		t.Errorf("tail = %q", tail)
	}
}

func TestStderrLogCutsAtCharacterBoundary(t *testing.T) {
	s := newStderrLog(4)
	s.start(nil)
	s.Write([]byte("aé€\n")) // 1 + 2 + 3 bytes
	if tail := s.tail(); len(tail) != 1 || tail[0] != "aé" {
		t.Errorf("tail = %q, want [\"aé\"]", tail)
	}
}
