package main

import (
	"encoding/json"
	"fmt"
)

// A checker checks every answer of a load run against the floor's answer.
// The first answer and every 256th are parsed and compared in full; the
// others must have the id that was sent and the length of the first (the
// servers encode deterministically), and any that does not is compared in
// full before it counts.
type checker struct {
	want      json.RawMessage // the floor's result
	expectLen int             // len(line) - digits(id) of a correct answer; 0 until known
	n         int
}

// A wrongAnswer is an answer of a load run that is not the floor's: it
// fails the benchmark at once, never run again (main.go retries a run
// that failed otherwise, once).
type wrongAnswer struct{ err error }

func (w wrongAnswer) Error() string { return "wrong answer: " + w.err.Error() }
func (w wrongAnswer) Unwrap() error { return w.err }

// check checks one response line; wantID < 0 accepts any id. What it
// finds wrong is a wrongAnswer.
func (c *checker) check(line []byte, wantID int64) error {
	if err := c.checkLine(line, wantID); err != nil {
		return wrongAnswer{err}
	}
	return nil
}

func (c *checker) checkLine(line []byte, wantID int64) error {
	c.n++
	if c.expectLen > 0 && c.n%256 != 0 {
		if id, ok := quickID(line); ok && (wantID < 0 || id == wantID) && len(line)-digits(id) == c.expectLen {
			return nil
		}
	}
	r, err := parseResponse(line)
	if err != nil {
		return err
	}
	var id int64
	if err := json.Unmarshal(r.ID, &id); err != nil || (wantID >= 0 && id != wantID) {
		return fmt.Errorf("response id %s, want %d", r.ID, wantID)
	}
	if err := sameAnswer(r.Result, c.want); err != nil {
		return err
	}
	if c.expectLen == 0 {
		c.expectLen = len(line) - digits(id)
	}
	return nil
}
