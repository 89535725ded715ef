package jsonschema

import (
	"strconv"
	"sync"

	"github.com/mcpwire/mcpwire/internal/jsonscan"
)

// The fast engine validates the instance's bytes in place. A Validate call
// runs it up to twice:
//
//   - a quick pass (collect == false) that stops at the first violation and
//     allocates nothing; valid instances, the hot path, end here;
//   - if that fails, a collecting pass that records every violation with
//     its JSON pointer.
//
// check returns the end offset of the value it checked, so each byte is
// scanned once per schema applied to it. In the quick pass a failing check
// may return -1 instead, and its callers give up at once.

// state is the scratch of one validation; it is pooled.
type state struct {
	data     []byte
	collect  bool
	steps    int
	maxSteps int
	over     bool // the step budget ran out
	errs     []Violation
	dropped  int
	path     []pathSeg
	scratch  []byte
	numBuf   []byte   // digits of the number being checked
	seen     []uint64 // bitsets of object slots, stacked by nesting
	spans    []int    // element offsets for uniqueItems, stacked
}

// pathSeg is one step of the instance location: a member name, or an
// array index when key is empty and index >= 0.
type pathSeg struct {
	key   string
	index int
}

var statePool = sync.Pool{New: func() any { return new(state) }}

// maxViolations caps the violations one error reports.
const maxViolations = 20

func getState(data []byte, maxSteps int) *state {
	s := statePool.Get().(*state)
	s.data, s.maxSteps = data, maxSteps
	return s
}

// rewind prepares s for another pass over the same data.
func (s *state) rewind(collect bool) {
	s.collect, s.steps, s.over = collect, 0, false
	s.errs, s.dropped = nil, 0
	s.path, s.seen, s.spans = s.path[:0], s.seen[:0], s.spans[:0]
}

// release returns s to the pool, dropping buffers a large instance grew,
// so that the pool does not keep them alive.
func (s *state) release() {
	s.rewind(false)
	s.data = nil
	const keep = 64 << 10
	if cap(s.scratch) > keep || cap(s.numBuf) > keep || cap(s.seen) > keep/8 || cap(s.spans) > keep/8 || cap(s.path) > keep/32 {
		*s = state{}
	}
	statePool.Put(s)
}

// check validates the value at s.data[i] against n.
func (s *state) check(n *node, i int) (end int, ok bool) {
	for n.onlyRef {
		n = n.ref
	}
	if s.steps++; s.steps > s.maxSteps {
		s.over = true
		if !s.collect {
			return -1, false
		}
		return jsonscan.SkipValue(s.data, i), false
	}
	switch n.always {
	case 1:
		return jsonscan.SkipValue(s.data, i), true
	case -1:
		if !s.collect {
			return -1, false
		}
		s.add("no value is allowed here", false)
		return jsonscan.SkipValue(s.data, i), false
	}
	d := s.data
	valid := true
	end = -1
	if n.ref != nil {
		if end, valid = s.check(n.ref, i); !valid && !s.collect {
			return -1, false
		}
	}
	k := kindAt(d, i)
	var num decimal
	if k == kindNumber && (n.num != nil || n.types.has(kindInteger)) {
		end = jsonscan.SkipValue(d, i)
		num, s.numBuf = parseDecimal(d[i:end], s.numBuf[:0])
	}
	if n.types != 0 && !n.types.allows(k, k == kindNumber && num.isInteger()) {
		if !s.collect {
			return -1, false
		}
		end = jsonscan.SkipValue(d, i)
		s.add("expected "+n.types.String()+", got "+describe(d[i:end]), true)
		return end, false
	}
	for _, e := range [2]*enumRule{n.enum, n.cnst} {
		if e != nil && !s.inEnum(e, i) {
			if !s.collect {
				return -1, false
			}
			s.enumViolation(e, i)
			valid = false
		}
	}
	ok = true
	switch {
	case k == kindObject && n.obj != nil:
		end, ok = s.object(n.obj, i)
	case k == kindArray && n.arr != nil:
		end, ok = s.array(n.arr, i)
	case k == kindString && n.str != nil:
		end, ok = s.string(n.str, i)
	case k == kindNumber && n.num != nil:
		ok = s.number(n.num, num, i, end)
	}
	if !ok {
		if !s.collect {
			return -1, false
		}
		valid = false
	}
	if n.comp != nil && !s.composition(n.comp, i) {
		if !s.collect {
			return -1, false
		}
		valid = false
	}
	if end < 0 {
		end = jsonscan.SkipValue(d, i)
	}
	return end, valid
}

// quick checks without recording violations.
func (s *state) quick(n *node, i int) (int, bool) {
	c := s.collect
	s.collect = false
	end, ok := s.check(n, i)
	s.collect = c
	return end, ok
}

func (s *state) object(o *objectRules, start int) (int, bool) {
	d := s.data
	valid := true
	words := (len(o.slotNames) + 63) / 64
	base := len(s.seen)
	for range words {
		s.seen = append(s.seen, 0)
	}
	count := 0
	i := jsonscan.SkipSpace(d, start+1)
	for d[i] != '}' {
		keyEnd, escaped := jsonscan.SkipString(d, i)
		key := d[i+1 : keyEnd-1]
		if escaped {
			key = appendUnescaped(nil, d[i:keyEnd])
		}
		keyAt := i
		v := jsonscan.SkipSpace(d, jsonscan.SkipSpace(d, keyEnd)+1)
		count++
		if s.collect {
			s.path = append(s.path, pathSeg{key: string(key), index: -1})
		}
		end := -1
		ok := true
		matched := false
		if r, found := o.props[string(key)]; found {
			s.seen[base+r.slot/64] |= 1 << (r.slot % 64)
			if r.n != nil {
				matched = true
				end, ok = s.check(r.n, v)
			}
		}
		for _, p := range o.patterns {
			if ok || s.collect {
				if p.re.Match(key) {
					matched = true
					var pok bool
					end, pok = s.check(p.n, v)
					ok = ok && pok
				}
			}
		}
		if !matched && o.additional != nil && (ok || s.collect) {
			if o.additional.always == -1 {
				ok = false
				if s.collect {
					s.path = s.path[:len(s.path)-1]
					s.add("unexpected property "+strconv.Quote(string(key))+allowedList(o), false)
					s.path = append(s.path, pathSeg{key: string(key), index: -1})
				}
			} else {
				end, ok = s.check(o.additional, v)
			}
		}
		if o.propNames != nil && (ok || s.collect) && !s.propertyName(o.propNames, keyAt, string(key)) {
			ok = false
		}
		if s.collect {
			s.path = s.path[:len(s.path)-1]
		}
		if !ok {
			if !s.collect {
				s.seen = s.seen[:base]
				return -1, false
			}
			valid = false
		}
		if end < 0 {
			end = jsonscan.SkipValue(d, v)
		}
		if i = jsonscan.SkipSpace(d, end); d[i] == ',' {
			i = jsonscan.SkipSpace(d, i+1)
		}
	}
	end := i + 1
	seen := func(slot int) bool { return s.seen[base+slot/64]&(1<<(slot%64)) != 0 }
	fail := func(msg string) bool {
		valid = false
		if s.collect {
			s.add(msg, false)
		}
		return s.collect
	}
	for _, slot := range o.required {
		if !seen(slot) && !fail("missing required property "+strconv.Quote(o.slotNames[slot])) {
			break
		}
	}
	if valid || s.collect {
		if o.minProps >= 0 && count < o.minProps {
			fail("has " + plural(count, "property", "properties") + ", fewer than minProperties " + strconv.Itoa(o.minProps))
		}
		if o.maxProps >= 0 && count > o.maxProps {
			fail("has " + plural(count, "property", "properties") + ", more than maxProperties " + strconv.Itoa(o.maxProps))
		}
	}
	for _, dep := range o.depReq {
		if valid || s.collect {
			if seen(dep.slot) {
				for _, r := range dep.required {
					if !seen(r) && !fail("property "+strconv.Quote(o.slotNames[dep.slot])+" requires property "+strconv.Quote(o.slotNames[r])) {
						break
					}
				}
			}
		}
	}
	for _, dep := range o.depSchemas {
		if (valid || s.collect) && seen(dep.slot) {
			if _, ok := s.check(dep.n, start); !ok {
				valid = false
			}
		}
	}
	s.seen = s.seen[:base]
	if !valid && !s.collect {
		return -1, false
	}
	return end, valid
}

// propertyName checks a member name against propertyNames. Violations are
// reported at the object, naming the member.
func (s *state) propertyName(n *node, keyAt int, key string) bool {
	if !s.collect {
		_, ok := s.check(n, keyAt)
		return ok
	}
	if _, ok := s.quick(n, keyAt); ok {
		return true
	}
	seg := s.path[len(s.path)-1]
	s.path = s.path[:len(s.path)-1]
	mark := len(s.errs)
	s.check(n, keyAt)
	for j := mark; j < len(s.errs); j++ {
		s.errs[j].Message = "property name " + strconv.Quote(key) + ": " + s.errs[j].Message
	}
	s.path = append(s.path, seg)
	return false
}

func (s *state) array(a *arrayRules, start int) (int, bool) {
	d := s.data
	valid := true
	base := len(s.spans)
	count, contained := 0, 0
	i := jsonscan.SkipSpace(d, start+1)
	for d[i] != ']' {
		if s.collect {
			s.path = append(s.path, pathSeg{index: count})
		}
		sub := a.items
		if count < len(a.prefix) {
			sub = a.prefix[count]
		}
		end := -1
		ok := true
		switch {
		case sub == nil:
		case sub.always == -1:
			ok = false
			if s.collect {
				s.add("unexpected item: at most "+plural(len(a.prefix), "item is", "items are")+" allowed", false)
			}
		default:
			end, ok = s.check(sub, i)
		}
		if a.contains != nil && (ok || s.collect) {
			e, cok := s.quick(a.contains, i)
			if cok {
				contained++
				end = e
			}
		}
		if a.unique {
			s.spans = append(s.spans, i)
		}
		if s.collect {
			s.path = s.path[:len(s.path)-1]
		}
		if !ok {
			if !s.collect {
				s.spans = s.spans[:base]
				return -1, false
			}
			valid = false
		}
		if end < 0 {
			end = jsonscan.SkipValue(d, i)
		}
		count++
		if i = jsonscan.SkipSpace(d, end); d[i] == ',' {
			i = jsonscan.SkipSpace(d, i+1)
		}
	}
	end := i + 1
	fail := func(msg string) {
		valid = false
		if s.collect {
			s.add(msg, false)
		}
	}
	if count < a.minItems {
		fail("has " + plural(count, "item", "items") + ", fewer than minItems " + strconv.Itoa(a.minItems))
	}
	if a.maxItems >= 0 && count > a.maxItems {
		fail("has " + plural(count, "item", "items") + ", more than maxItems " + strconv.Itoa(a.maxItems))
	}
	if a.contains != nil {
		if contained < a.minContains {
			fail("has " + strconv.Itoa(contained) + " matching the contains schema, fewer than " + strconv.Itoa(a.minContains))
		}
		if a.maxContains >= 0 && contained > a.maxContains {
			fail("has " + strconv.Itoa(contained) + " matching the contains schema, more than maxContains " + strconv.Itoa(a.maxContains))
		}
	}
	if a.unique && (valid || s.collect) {
		if x, y, dup := s.duplicate(s.spans[base:]); dup {
			fail("items " + strconv.Itoa(x) + " and " + strconv.Itoa(y) + " are equal, but uniqueItems is set")
		}
	}
	s.spans = s.spans[:base]
	if !valid && !s.collect {
		return -1, false
	}
	return end, valid
}

// duplicate finds two equal items among the values starting at offsets.
func (s *state) duplicate(offsets []int) (int, int, bool) {
	if len(offsets) < 2 {
		return 0, 0, false
	}
	buf := s.scratch[:0]
	bounds := make([]int, 0, len(offsets)+1)
	for _, at := range offsets {
		bounds = append(bounds, len(buf))
		buf, _ = appendCanonical(buf, s.data, at)
	}
	bounds = append(bounds, len(buf))
	s.scratch = buf
	item := func(k int) string { return string(buf[bounds[k]:bounds[k+1]]) }
	if len(offsets) <= 20 {
		for x := range offsets {
			for y := x + 1; y < len(offsets); y++ {
				if item(x) == item(y) {
					return x, y, true
				}
			}
		}
		return 0, 0, false
	}
	first := make(map[string]int, len(offsets))
	for y := range offsets {
		if x, ok := first[item(y)]; ok {
			return x, y, true
		}
		first[item(y)] = y
	}
	return 0, 0, false
}

func (s *state) string(r *stringRules, i int) (int, bool) {
	end, escaped := jsonscan.SkipString(s.data, i)
	str := s.data[i:end]
	valid := true
	if r.minLen > 0 || r.maxLen >= 0 {
		n := stringLength(str, escaped)
		if n < r.minLen || (r.maxLen >= 0 && n > r.maxLen) {
			if !s.collect {
				return -1, false
			}
			valid = false
			if n < r.minLen {
				s.add("is "+plural(n, "character", "characters")+" long, shorter than minLength "+strconv.Itoa(r.minLen), false)
			} else {
				s.add("is "+plural(n, "character", "characters")+" long, longer than maxLength "+strconv.Itoa(r.maxLen), false)
			}
		}
	}
	if r.pattern == nil && r.format == nil {
		return end, valid
	}
	text := str[1 : len(str)-1]
	if escaped {
		s.scratch = appendUnescaped(s.scratch[:0], str)
		text = s.scratch
	}
	if r.pattern != nil && !r.pattern.Match(text) {
		if !s.collect {
			return -1, false
		}
		valid = false
		s.add(describe(str)+" does not match pattern "+strconv.Quote(r.pattern.String()), false)
	}
	if r.format != nil {
		if err := r.format.check(string(text)); err != nil {
			if !s.collect {
				return -1, false
			}
			valid = false
			s.add(describe(str)+" is not a valid "+r.format.name+": "+err.Error(), false)
		}
	}
	return end, valid
}

func (s *state) number(r *numberRules, x decimal, i, end int) bool {
	valid := true
	fail := func(what string, b *bound) {
		valid = false
		if s.collect {
			s.add(clip(string(s.data[i:min(end, i+41)]))+" "+what+" "+clip(b.raw), false) // clip cuts at 40 bytes
		}
	}
	if r.min != nil && cmpDecimal(x, r.min.d) < 0 {
		fail("is less than the minimum", r.min)
	}
	if r.max != nil && cmpDecimal(x, r.max.d) > 0 {
		fail("is greater than the maximum", r.max)
	}
	if r.exMin != nil && cmpDecimal(x, r.exMin.d) <= 0 {
		fail("must be greater than", r.exMin)
	}
	if r.exMax != nil && cmpDecimal(x, r.exMax.d) >= 0 {
		fail("must be less than", r.exMax)
	}
	if r.multipleOf != nil {
		if multiple, ok := isMultiple(x, r.multipleOf.d); !ok {
			fail("has too many digits to check multipleOf", r.multipleOf)
		} else if !multiple {
			fail("is not a multiple of", r.multipleOf)
		}
	}
	return valid
}

func (s *state) composition(c *compRules, i int) bool {
	valid := true
	for _, sub := range c.allOf {
		if _, ok := s.check(sub, i); !ok {
			if !s.collect {
				return false
			}
			valid = false
		}
	}
	if len(c.anyOf) > 0 {
		matched := false
		for _, sub := range c.anyOf {
			if _, ok := s.quick(sub, i); ok {
				matched = true
				break
			}
		}
		if !matched {
			if !s.collect {
				return false
			}
			valid = false
			s.explainAlternatives("anyOf", c.anyOf, i)
		}
	}
	if len(c.oneOf) > 0 {
		first, second := -1, -1
		for j, sub := range c.oneOf {
			if _, ok := s.quick(sub, i); ok {
				if first < 0 {
					first = j
					continue
				}
				second = j
				break
			}
		}
		if first < 0 || second >= 0 {
			if !s.collect {
				return false
			}
			valid = false
			if first < 0 {
				s.explainAlternatives("oneOf", c.oneOf, i)
			} else {
				s.add("matches both oneOf["+strconv.Itoa(first)+"] and oneOf["+strconv.Itoa(second)+"], but must match exactly one", false)
			}
		}
	}
	if c.not != nil {
		if _, ok := s.quick(c.not, i); ok {
			if !s.collect {
				return false
			}
			valid = false
			s.add("must not match the schema in \"not\"", false)
		}
	}
	if c.ifN != nil {
		_, cond := s.quick(c.ifN, i)
		branch := c.elseN
		if cond {
			branch = c.thenN
		}
		if branch != nil {
			if _, ok := s.check(branch, i); !ok {
				if !s.collect {
					return false
				}
				valid = false
			}
		}
	}
	return valid
}

// explainAlternatives reports that no alternative of anyOf/oneOf matched.
// If every alternative failed on type, one line says which types would
// do; otherwise the violations of the closest alternative are listed.
func (s *state) explainAlternatives(keyword string, alts []*node, i int) {
	saved, savedDropped := s.errs, s.dropped
	best, bestScore := -1, 0
	var bestErrs []Violation
	var types typeSet
	allType := true
	for j, alt := range alts {
		s.errs = nil
		s.check(alt, i)
		errs := s.errs
		score := len(errs)
		if len(errs) == 1 && errs[0].typeMismatch && errs[0].Pointer == s.pointer() {
			types |= leadingTypes(alt)
			score += maxViolations
		} else {
			allType = false
		}
		if best < 0 || score < bestScore {
			best, bestScore, bestErrs = j, score, errs
		}
	}
	s.errs, s.dropped = saved, savedDropped
	end := jsonscan.SkipValue(s.data, i)
	if allType && types != 0 {
		s.add("expected "+types.String()+" ("+keyword+"), got "+describe(s.data[i:end]), true)
		return
	}
	tag := keyword + "[" + strconv.Itoa(best) + "]"
	s.add("matches none of the "+strconv.Itoa(len(alts))+" alternatives of "+keyword+"; closest is "+tag, false)
	for _, v := range bestErrs {
		if len(s.errs) >= maxViolations {
			s.dropped++
			continue
		}
		v.Message = "(" + tag + ") " + v.Message
		s.errs = append(s.errs, v)
	}
}

// leadingTypes is the type set a node checks first, following refs.
func leadingTypes(n *node) typeSet {
	for depth := 0; n != nil && depth < 16; depth++ {
		if n.types != 0 {
			return n.types
		}
		n = n.ref
	}
	return 0
}

func (s *state) inEnum(e *enumRule, i int) bool {
	var canon []byte
	if s.data[i] == '"' {
		end, escaped := jsonscan.SkipString(s.data, i)
		if !escaped {
			canon = s.data[i:end]
		}
	}
	if canon == nil {
		s.scratch, _ = appendCanonical(s.scratch[:0], s.data, i)
		canon = s.scratch
	}
	if e.set != nil {
		_, ok := e.set[string(canon)]
		return ok
	}
	for _, c := range e.canon {
		if c == string(canon) {
			return true
		}
	}
	return false
}

func (s *state) enumViolation(e *enumRule, i int) {
	if e.isConst {
		s.add("must be "+clip(e.raw[0]), false)
		return
	}
	const show = 10
	msg := "must be one of "
	for k, raw := range e.raw[:min(len(e.raw), show)] {
		if k > 0 {
			msg += ", "
		}
		msg += clip(raw)
	}
	if len(e.raw) > show {
		msg += ", … (" + strconv.Itoa(len(e.raw)-show) + " more)"
	}
	s.add(msg+"; got "+describe(s.data[i:jsonscan.SkipValue(s.data, i)]), false)
}
