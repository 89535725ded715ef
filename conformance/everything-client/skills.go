package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpwire/mcpwire/client"
)

// The client scenarios of the Skills extension (SEP-2640). The client
// acts as a host: it lists the server's skills and reads nothing more
// until a skill is loaded (sep-2640-client-no-prefetch); loading a skill
// reads its SKILL.md alone and verifies it against the listed entry,
// and a skill that fails verification is refused, its other files
// unread (sep-2640-client-verify-digest, -size, -frontmatter).

// listSkills lists every skill, and loads none.
func listSkills(ctx context.Context, e *env) error {
	s, err := e.connect(ctx, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	n := 0
	for _, err := range s.Skills(ctx) {
		if err != nil {
			return fmt.Errorf("skills/list: %w", err)
		}
		n++
	}
	e.log.Debug("listed skills", "count", n)
	return nil
}

// loadSkills loads every listed skill and, once a skill verifies, reads
// each of its other files. A skill that fails verification is refused:
// the run ends with an error that names the file and what differs.
func loadSkills(ctx context.Context, e *env) error {
	s, err := e.connect(ctx, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	var refused []error
	for entry, err := range s.Skills(ctx) {
		if err != nil {
			return fmt.Errorf("skills/list: %w", err)
		}
		l, err := s.LoadSkill(ctx, entry, nil)
		if errors.Is(err, client.ErrSkillVerification) {
			refused = append(refused, err)
			continue
		}
		if err != nil {
			return err
		}
		for _, r := range l.Entry.Resources {
			if r.URI == l.Entry.URI {
				continue
			}
			if _, err := l.ReadFile(ctx, r.URI); err != nil {
				return err
			}
		}
		e.log.Debug("loaded skill", "uri", entry.URI, "files", len(l.Entry.Resources))
	}
	if len(refused) > 0 {
		msgs := make([]string, len(refused))
		for i, err := range refused {
			msgs[i] = err.Error()
		}
		return fmt.Errorf("refused %d skill(s): %s", len(refused), strings.Join(msgs, "; "))
	}
	return nil
}

// skillScenarios are the scenarios of this file.
var skillScenarios = map[string]scenario{
	"sep-2640-client-no-prefetch":        listSkills,
	"sep-2640-client-verify-digest":      loadSkills,
	"sep-2640-client-verify-size":        loadSkills,
	"sep-2640-client-verify-frontmatter": loadSkills,
}
